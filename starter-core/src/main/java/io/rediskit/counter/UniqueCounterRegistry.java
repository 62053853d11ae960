package io.rediskit.counter;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link UniqueCounter}s by name: configured ones (in Spring Boot, under
 * {@code redis-kit.counter.counters}) through {@link #get(String)}, others through
 * {@link #create(String, UniqueCounterSpec)}. One counter exists per name; a new spec applies to buckets written
 * from then on.
 */
public class UniqueCounterRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Listeners<UniqueCounterListener> listeners;

	private final Function<String, @Nullable UniqueCounterSpec> configuredSpecs;

	private final ConcurrentMap<String, RedisUniqueCounter> counters = new ConcurrentHashMap<>();

	/**
	 * A registry of counters created in code only.
	 * @param connectionFactory where counters run
	 * @param keyNaming names the Redis keys
	 * @param listener told of every call
	 */
	public UniqueCounterRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			UniqueCounterListener listener) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, List.of(listener),
				(name) -> null);
	}

	/**
	 * A registry that also serves configured counters.
	 * @param scripts runs the bucket scripts
	 * @param commands runs {@code PFADD} and {@code PFCOUNT}
	 * @param keyNaming names the Redis keys
	 * @param listeners told of every call, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null}; asked on every {@link #get(String)}
	 */
	public UniqueCounterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			List<? extends UniqueCounterListener> listeners,
			Function<String, @Nullable UniqueCounterSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("unique counter", listeners);
		this.configuredSpecs = Objects.requireNonNull(configuredSpecs, "configuredSpecs must not be null");
	}

	/**
	 * The counter of a name.
	 * @param name a configured name, or one passed to {@link #create(String, UniqueCounterSpec)}
	 * @return the counter
	 * @throws IllegalArgumentException if no counter has the name
	 */
	public UniqueCounter get(String name) {
		Objects.requireNonNull(name, "name must not be null");
		UniqueCounterSpec configured = this.configuredSpecs.apply(name);
		RedisUniqueCounter counter = this.counters.get(name);
		if (counter != null && (configured == null || configured.equals(counter.spec()))) {
			return counter;
		}
		if (configured == null) {
			throw new IllegalArgumentException("No unique counter named '" + name
					+ "': configure redis-kit.counter.counters." + name + " or create it in code first");
		}
		return create(name, configured);
	}

	/**
	 * Creates a counter, or gives a name a new spec.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its buckets
	 * @return the counter
	 */
	public UniqueCounter create(String name, UniqueCounterSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid("Unique counter", name);
		return this.counters.compute(name, (key, existing) -> (existing != null && existing.spec().equals(spec))
				? existing : new RedisUniqueCounter(key, spec, this.scripts, this.commands, this.keyNaming,
						this.listeners));
	}

	/** @return the names of the counters used so far */
	public Set<String> names() {
		return new TreeSet<>(this.counters.keySet());
	}

}

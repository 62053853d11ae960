package io.rediskit.counter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import io.rediskit.support.Stages;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link UniqueCounter}s by name: configured ones (in Spring Boot, under
 * {@code redis-kit.counter.counters}) through {@link #get(String)}, others through
 * {@link #create(String, UniqueCounterSpec)}. One counter exists per name, with one spec: {@code create} with
 * the spec a name already has returns its counter, and another spec for a configured or created name throws
 * {@link SpecConflictException} (see {@link NamedSpecs} for the rule). A changed configuration (a refresh) applies
 * to buckets written from then on.
 */
public class UniqueCounterRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private volatile Observations observations = Observations.NOOP;

	private final NamedSpecs<UniqueCounterSpec, RedisUniqueCounter> counters;

	/**
	 * A registry of counters created in code only.
	 * @param connectionFactory where counters run
	 * @param keyNaming names the Redis keys
	 */
	public UniqueCounterRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, (name) -> null);
	}

	/**
	 * A registry that also serves configured counters.
	 * @param scripts runs the bucket scripts
	 * @param commands runs {@code PFADD} and {@code PFCOUNT}
	 * @param keyNaming names the Redis keys
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}
	 */
	public UniqueCounterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			ConfiguredSpecs<UniqueCounterSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.counters = new NamedSpecs<>("unique counter", "redis-kit.counter.counters", configuredSpecs,
				this::newCounter, (counter, spec) -> newCounter(counter.name(), spec));
	}

	/**
	 * Observes every call of the counters as {@link RedisKitObservation#COUNTER_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The counter of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #create(String, UniqueCounterSpec)}
	 * @return the counter
	 * @throws IllegalArgumentException if no counter has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public UniqueCounter get(String name) {
		return this.counters.get(name);
	}

	/**
	 * Creates a counter, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its buckets
	 * @return the counter
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public UniqueCounter create(String name, UniqueCounterSpec spec) {
		return this.counters.create(name, spec);
	}

	/**
	 * Counts the distinct members added to any of several counters' all-time counts (the visitors of two pages),
	 * without keeping a merged copy. Off Redis Cluster (one server, Sentinel), or when the counters' keys share a
	 * hash slot, this is one {@code PFCOUNT} of them all. On a cluster, where each counter's hash tag of its own
	 * usually puts it in another slot, it is one {@code GET} of each, sent at once, then one script that copies
	 * them into scratch keys of one slot, counts those and deletes them: a round trip and the counters' bytes
	 * (12 kB each at most) more, the price of not failing with {@code CROSSSLOT}. Whether the deployment is a
	 * cluster is {@link CommandExecutor#isCluster()}, told once. A member added to one counter while the union
	 * reads them may or may not be counted.
	 * @param names the counters, each configured or created before; at least one
	 * @return the estimate, with the error of one counter (0.81% standard error)
	 * @throws IllegalArgumentException if no names are given or a name has no counter
	 */
	public long countUnion(String... names) {
		return Stages.join(countUnionAsync(names));
	}

	/**
	 * {@link #countUnion(String...)} without blocking; unknown names throw at once.
	 * @param names the counters
	 * @return the estimate
	 */
	public CompletionStage<Long> countUnionAsync(String... names) {
		if (names.length == 0) {
			throw new IllegalArgumentException("names must name at least one counter");
		}
		List<RedisUniqueCounter> counters = new ArrayList<>(names.length);
		for (String name : names) {
			counters.add(this.counters.get(name));
		}
		return counters.get(0).countUnionAsync(counters.subList(1, counters.size()));
	}

	/** @return the names of the counters used so far */
	public Set<String> names() {
		return this.counters.names();
	}

	private RedisUniqueCounter newCounter(String name, UniqueCounterSpec spec) {
		return new RedisUniqueCounter(name, spec, this.scripts, this.commands, this.keyNaming, this::observations);
	}

}

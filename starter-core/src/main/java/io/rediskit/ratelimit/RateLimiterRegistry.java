package io.rediskit.ratelimit;

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
 * Hands out {@link RateLimiter}s by name: those configured (in Spring Boot, under
 * {@code redis-kit.rate-limit.limiters}) through {@link #get(String)}, and those built in code through
 * {@link #create(String, RateLimitSpec)}. One limiter exists per name.
 * <p>
 * Specs can change while the application runs: {@code create} with a known name gives that limiter the new
 * spec, and {@code get} picks up a changed configuration (such as a Spring Cloud refresh). The usage already
 * stored in Redis is kept, so a new limit or period applies to it within one period, with no reset to full
 * capacity. A change of algorithm starts from empty state, as each algorithm keeps its own keys.
 * <p>
 * Keys are {@code <prefix>ratelimit:<algorithm>:{<name>:<key>}}: one Redis key per limited key, in the hash
 * slot of its own tag, expiring once the key has been idle long enough to be back at full capacity.
 */
public class RateLimiterRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Listeners<RateLimitListener> listeners;

	private final Function<String, @Nullable RateLimitSpec> configuredSpecs;

	private final ConcurrentMap<String, RedisRateLimiter> limiters = new ConcurrentHashMap<>();

	/**
	 * A registry of limiters created in code only.
	 * @param connectionFactory where limiters run their scripts
	 * @param keyNaming names the Redis keys
	 * @param listener told of every decision
	 */
	public RateLimiterRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			RateLimitListener listener) {
		this(ScriptExecutor.of(connectionFactory), connectionFactory, keyNaming, List.of(listener), (name) -> null);
	}

	/**
	 * A registry that also serves configured limiters.
	 * @param scripts runs the limiters' scripts
	 * @param connectionFactory for the commands that are not scripts ({@link RateLimiter#reset(String)})
	 * @param keyNaming names the Redis keys
	 * @param listeners told of every decision, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null}; asked on every {@link #get(String)},
	 * so it must be cheap, and its answer may change over time
	 */
	public RateLimiterRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			List<? extends RateLimitListener> listeners, Function<String, @Nullable RateLimitSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = CommandExecutor.of(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("rate limit", listeners);
		this.configuredSpecs = Objects.requireNonNull(configuredSpecs, "configuredSpecs must not be null");
	}

	/**
	 * The limiter of a name, with its configured spec applied if the configuration changed since it was last
	 * applied.
	 * @param name a configured name, or one passed to {@link #create(String, RateLimitSpec)}
	 * @return the limiter
	 * @throws IllegalArgumentException if no limiter has the name
	 */
	public RateLimiter get(String name) {
		Objects.requireNonNull(name, "name must not be null");
		RateLimitSpec configured = this.configuredSpecs.apply(name);
		RedisRateLimiter limiter = this.limiters.get(name);
		if (limiter == null) {
			if (configured == null) {
				// Advice to configure a name no property can hold (a '.' splits the path) would not work.
				throw new IllegalArgumentException("No rate limiter named '" + name + (Names.isValid(name)
						? "': configure redis-kit.rate-limit.limiters." + name + " or create it in code first"
						: "', and none can be: names are " + Names.RULE));
			}
			limiter = this.limiters.computeIfAbsent(checkName(name), (key) -> newLimiter(key, configured));
		}
		if (configured != null) {
			limiter.applyConfigured(configured);
		}
		return limiter;
	}

	/**
	 * Creates a limiter, or gives the existing limiter of that name a new spec (keeping its stored usage).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters; no {@code .}, which would
	 * split the name in a property path
	 * @param spec what it allows
	 * @return the limiter
	 * @throws IllegalArgumentException if the name is not valid
	 */
	public RateLimiter create(String name, RateLimitSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		return this.limiters.compute(checkName(name), (key, existing) -> {
			if (existing == null) {
				return newLimiter(key, spec);
			}
			existing.update(spec);
			return existing;
		});
	}

	/** @return the names of the limiters used so far */
	public Set<String> names() {
		return new TreeSet<>(this.limiters.keySet());
	}

	private RedisRateLimiter newLimiter(String name, RateLimitSpec spec) {
		return new RedisRateLimiter(name, spec, this.scripts, this.commands, this.keyNaming, this.listeners);
	}

	private static String checkName(String name) {
		return Names.requireValid("Rate limiter", name);
	}

}

package io.rediskit.ratelimit;

import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link RateLimiter}s by name: those configured (in Spring Boot, under
 * {@code redis-kit.rate-limit.limiters}) through {@link #get(String)}, and those built in code through
 * {@link #create(String, RateLimitSpec)}. One limiter exists per name.
 * <p>
 * One name has one spec at a time: {@code create} with the spec a name already has returns its limiter, and
 * another spec for a configured or created name throws {@link SpecConflictException} (see {@link NamedSpecs} for
 * the rule). Specs can still change while the application runs, on purpose: {@link #update(String, RateLimitSpec)}
 * gives a limiter a new spec, and {@code get} picks up a changed configuration (such as a Spring Cloud refresh).
 * The usage already
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

	private final NamedSpecs<RateLimitSpec, RedisRateLimiter> limiters;

	private volatile Observations observations = Observations.NOOP;

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
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}, so it must be cheap, and its answer
	 * may change over time
	 */
	public RateLimiterRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			List<? extends RateLimitListener> listeners, ConfiguredSpecs<RateLimitSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = CommandExecutor.of(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("rate limit", listeners);
		this.limiters = new NamedSpecs<>("rate limiter", "redis-kit.rate-limit.limiters", configuredSpecs,
				this::newLimiter, (limiter, spec) -> {
					limiter.update(spec);
					return limiter;
				});
	}

	/**
	 * The limiter of a name, with its configured spec applied if the configuration changed since it was last
	 * applied.
	 * @param name a configured name, or one passed to {@link #create(String, RateLimitSpec)}
	 * @return the limiter
	 * @throws IllegalArgumentException if no limiter has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public RateLimiter get(String name) {
		return this.limiters.get(name);
	}

	/**
	 * Creates a limiter, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters; no {@code .}, which would
	 * split the name in a property path
	 * @param spec what it allows
	 * @return the limiter
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec: use
	 * {@link #update(String, RateLimitSpec)} to change a limit on purpose
	 */
	public RateLimiter create(String name, RateLimitSpec spec) {
		return this.limiters.create(name, spec);
	}

	/**
	 * Gives a limiter a new spec on purpose, keeping its stored usage, or creates it. A configured limiter keeps
	 * the new spec until its configuration changes.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec what it allows from now on
	 * @return the limiter
	 * @throws IllegalArgumentException if the name is not valid
	 */
	public RateLimiter update(String name, RateLimitSpec spec) {
		return this.limiters.update(name, spec);
	}

	/**
	 * Makes every decision of the registry's limiters an observation ({@link RedisKitObservation#RATE_LIMIT}, tagged
	 * with the limiter's name, algorithm and outcome); applies to limiters made before too.
	 * @param observations where the observations are made; {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/** @return the names of the limiters used so far */
	public Set<String> names() {
		return this.limiters.names();
	}

	private RedisRateLimiter newLimiter(String name, RateLimitSpec spec) {
		return new RedisRateLimiter(name, spec, this.scripts, this.commands, this.keyNaming, this.listeners,
				this::observations);
	}

}

package io.rediskit.recent;

import java.time.Clock;
import java.util.Objects;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link RecentItems} lists by name: configured ones (in Spring Boot, under
 * {@code redis-kit.recent-items.lists}) through {@link #get(String)}, others through
 * {@link #create(String, RecentItemsSpec)}. One list exists per name, with one spec: {@code create} with
 * the spec a name already has returns its list, and another spec throws {@link SpecConflictException}
 * (see {@link NamedSpecs} for the rule). A changed configuration (a refresh) applies to calls made from then on.
 */
public class RecentItemsRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private volatile Observations observations = Observations.NOOP;

	private final Clock clock;

	private final NamedSpecs<RecentItemsSpec, RedisRecentItems> lists;

	/**
	 * A registry of lists created in code only, on the system clock.
	 * @param connectionFactory where lists run
	 * @param keyNaming names the Redis keys
	 */
	public RecentItemsRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming,
				(name) -> null, Clock.systemUTC());
	}

	/**
	 * A registry that also serves configured lists.
	 * @param scripts runs the scripts
	 * @param commands runs {@code ZRANGE} and {@code UNLINK}
	 * @param keyNaming names the Redis keys
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}
	 * @param clock picks the trending bucket of a view
	 */
	public RecentItemsRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			ConfiguredSpecs<RecentItemsSpec> configuredSpecs,
			Clock clock) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.lists = new NamedSpecs<>("recent items", "redis-kit.recent-items.lists", configuredSpecs,
				this::newRecentItems, (list, spec) -> newRecentItems(list.name(), spec));
	}

	/**
	 * Observes every call of the lists as {@link RedisKitObservation#RECENT_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The list of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #create(String, RecentItemsSpec)}
	 * @return the list
	 * @throws IllegalArgumentException if no list has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public RecentItems get(String name) {
		return this.lists.get(name);
	}

	/**
	 * Creates a list, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its capacity, idle TTL and trending
	 * @return the list
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public RecentItems create(String name, RecentItemsSpec spec) {
		return this.lists.create(name, spec);
	}

	/** @return the names of the lists used so far */
	public Set<String> names() {
		return this.lists.names();
	}

	private RedisRecentItems newRecentItems(String name, RecentItemsSpec spec) {
		return new RedisRecentItems(name, spec, this.scripts, this.commands, this.keyNaming, this.clock, this::observations);
	}

}

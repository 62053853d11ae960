package io.rediskit.rank;

import java.time.Clock;
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
 * Hands out {@link Leaderboard}s by name: configured ones (in Spring Boot, under
 * {@code redis-kit.leaderboard.leaderboards}) through {@link #get(String)}, others through
 * {@link #create(String, LeaderboardSpec)}. One leaderboard exists per name, with one spec: {@code create} with
 * the spec a name already has returns its leaderboard, and another spec throws {@link SpecConflictException}
 * (see {@link NamedSpecs} for the rule). A changed configuration (a refresh) applies to calls made from then on.
 */
public class LeaderboardRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Listeners<LeaderboardListener> listeners;

	private volatile Observations observations = Observations.NOOP;

	private final Clock clock;

	private final NamedSpecs<LeaderboardSpec, RedisLeaderboard> leaderboards;

	/**
	 * A registry of leaderboards created in code only, on the system clock.
	 * @param connectionFactory where leaderboards run
	 * @param keyNaming names the Redis keys
	 * @param listener told of every vote
	 */
	public LeaderboardRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			LeaderboardListener listener) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, List.of(listener),
				(name) -> null, Clock.systemUTC());
	}

	/**
	 * A registry that also serves configured leaderboards.
	 * @param scripts runs the scripts
	 * @param commands runs the single commands ({@code ZADD}, {@code ZSCORE}, {@code SADD}, ...)
	 * @param keyNaming names the Redis keys
	 * @param listeners told of every vote, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}
	 * @param clock picks the period boards of an increment, in each spec's zone
	 */
	public LeaderboardRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			List<? extends LeaderboardListener> listeners, ConfiguredSpecs<LeaderboardSpec> configuredSpecs,
			Clock clock) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("leaderboard", listeners);
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.leaderboards = new NamedSpecs<>("leaderboard", "redis-kit.leaderboard.leaderboards", configuredSpecs,
				this::newLeaderboard, (board, spec) -> newLeaderboard(board.name(), spec));
	}

	/**
	 * Observes every call of the leaderboards as {@link RedisKitObservation#RANK_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The leaderboard of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #create(String, LeaderboardSpec)}
	 * @return the leaderboard
	 * @throws IllegalArgumentException if no leaderboard has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public Leaderboard get(String name) {
		return this.leaderboards.get(name);
	}

	/**
	 * Creates a leaderboard, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its periods, views and voting
	 * @return the leaderboard
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public Leaderboard create(String name, LeaderboardSpec spec) {
		return this.leaderboards.create(name, spec);
	}

	/** @return the names of the leaderboards used so far */
	public Set<String> names() {
		return this.leaderboards.names();
	}

	private RedisLeaderboard newLeaderboard(String name, LeaderboardSpec spec) {
		return new RedisLeaderboard(name, spec, this.keyNaming, this.clock,
				new LeaderboardCalls(name, this.scripts, this.commands, this.listeners,
						this::observations));
	}

}

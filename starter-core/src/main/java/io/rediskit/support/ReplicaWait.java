package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Whether a write that matters waits for replicas: after the script, {@code WAIT replicas timeout} on the same
 * connection (the same node on Redis Cluster), and what to do when fewer replicas acknowledge within the
 * timeout.
 * <p>
 * What it buys: a write acknowledged by {@code replicas} replicas survives a failover to one of them.
 * What it does not: {@code WAIT} does not make replication synchronous (a failover may still promote a replica
 * that did not acknowledge, and the write may be visible to other clients before it is replicated), and it
 * says nothing about persistence. {@code WAITAOF} (Redis 7.2) would add the fsync; {@link #waitAofAvailable}
 * tells whether the server has it, and redis-kit uses {@code WAIT} only.
 *
 * @param replicas how many replicas must acknowledge; {@code 0} turns the wait off
 * @param timeout how long the server waits for them; keep it well below the client's command timeout
 * @param onShortfall what happens when fewer replicas acknowledge
 */
public record ReplicaWait(int replicas, Duration timeout, Shortfall onShortfall) {

	/** No wait: writes are acknowledged by the master alone, as Redis does by default. */
	public static final ReplicaWait NONE = new ReplicaWait(0, Duration.ofMillis(100), Shortfall.ACCEPT);

	/**
	 * Validates the settings.
	 * @throws InvalidSpecException naming the setting that is out of range
	 */
	public ReplicaWait {
		Objects.requireNonNull(timeout, "timeout must not be null");
		Objects.requireNonNull(onShortfall, "onShortfall must not be null");
		if (replicas < 0) {
			throw new InvalidSpecException("replicas", "must be 0 (no wait) or more, was " + replicas);
		}
		if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
			throw new InvalidSpecException("timeout", "must be between 1ms and 1m, was " + timeout);
		}
	}

	/**
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long the server waits for them
	 * @return a wait that fails the write when too few replicas acknowledge
	 */
	public static ReplicaWait failing(int replicas, Duration timeout) {
		return new ReplicaWait(replicas, timeout, Shortfall.FAIL);
	}

	/**
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long the server waits for them
	 * @return a wait that keeps the write and reports the shortfall when too few replicas acknowledge
	 */
	public static ReplicaWait accepting(int replicas, Duration timeout) {
		return new ReplicaWait(replicas, timeout, Shortfall.ACCEPT);
	}

	/** @return whether writes wait for replicas at all */
	public boolean enabled() {
		return this.replicas > 0;
	}

	/**
	 * Whether the server has {@code WAITAOF} (Redis 7.2 and later), asked with {@code COMMAND INFO} rather than
	 * guessed from a version or an error message.
	 * @param connectionFactory the application's connections
	 * @return whether {@code WAITAOF} exists
	 */
	public static boolean waitAofAvailable(RedisConnectionFactory connectionFactory) {
		// A MULTI reply, as Bloom's detection reads it: a known command's entry is a nested array holding integers
		// (its arity), which a plain connection.execute reply (bytes only) cannot decode on Redis 7.2 or Valkey.
		List<Object> reply = CommandExecutor.of(connectionFactory)
			.execute("COMMAND", ReturnType.MULTI, "INFO".getBytes(StandardCharsets.US_ASCII),
					"WAITAOF".getBytes(StandardCharsets.US_ASCII));
		return reply != null && !reply.isEmpty() && reply.get(0) instanceof List<?>;
	}

	/** What a write does when fewer replicas than required acknowledged it within the timeout. */
	public enum Shortfall {

		/** The write is undone where it can be (a lock acquisition is released) and the call fails. */
		FAIL,

		/** The write stands; the shortfall is reported to the primitive's listeners (and so to metrics). */
		ACCEPT

	}

	/**
	 * A script's reply and how many replicas acknowledged the write.
	 * @param <T> the reply type
	 * @param reply the script's reply
	 * @param acknowledged the replicas that acknowledged within the timeout ({@code WAIT}'s reply)
	 */
	public record Acknowledged<T>(T reply, long acknowledged) {
	}

}

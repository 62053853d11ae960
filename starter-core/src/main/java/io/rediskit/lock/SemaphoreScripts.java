package io.rediskit.lock;

import static io.rediskit.lock.LockScripts.number;
import static io.rediskit.lock.LockScripts.required;
import static io.rediskit.lock.LockScripts.script;
import static io.rediskit.lock.LockScripts.utf8;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of the semaphore, one script per job ({@code semaphore_*.lua}), with the keys of one
 * semaphore, all in its name's hash slot: {@code <prefix>semaphore:{<name>}} (the holders, a sorted set of owners
 * scored by the end of their lease on the server's clock), {@code ...:state} (the last fencing token, the total
 * set at run time and each holder's permits) and the channel {@code ...:released}.
 */
final class SemaphoreScripts {

	static final LuaScript ACQUIRE = granting("semaphore_acquire");

	static final LuaScript RELEASE = script("semaphore_release");

	static final LuaScript HAND_OFF = granting("semaphore_hand_off");

	static final LuaScript RENEW = script("semaphore_renew");

	static final LuaScript SET_TOTAL = script("semaphore_set_total");

	static final LuaScript PERMITS = script("semaphore_permits");

	/**
	 * How long the state outlives the last lease: it keeps the fencing tokens increasing and the total set at run
	 * time, as the lock keeps its fence.
	 */
	static final Duration STATE_TTL = LockScripts.FENCE_TTL;

	private static final byte[] STATE_TTL_MILLIS = number(STATE_TTL.toMillis());

	private final ScriptExecutor executor;

	SemaphoreScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** A script that takes permits, with {@code semaphore_grant.lua} as its function {@code grant}. */
	static LuaScript granting(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/" + name + ".lua",
				Map.of("grant", "META-INF/redis-kit/scripts/lock/semaphore_grant.lua"));
	}

	/** The keys of a semaphore, as the lock's {@link LockScripts.Keys} that the shell records holds under. */
	static LockScripts.Keys keys(KeyNaming naming, String name, String group) {
		return new LockScripts.Keys(naming.key("semaphore", name), naming.key("semaphore", name, "state"),
				naming.key("semaphore", name, "released"), name, group);
	}

	/**
	 * {@link #acquire}, awaited on the calling thread, which reads the reply there: for a caller that blocks
	 * anyway, so that the driver's one I/O thread only completes the call. The wait ignores interrupts, as a
	 * join does.
	 */
	Attempt acquireNow(LockScripts.Keys keys, String owner, int permits, long leaseMillis, int total) {
		return Attempt.of(Stages.join(this.executor.<List<Object>>executeAsync(ACQUIRE, ReturnType.MULTI, 2,
				keys.lockBytes, keys.fenceBytes, utf8(owner), number(permits), number(leaseMillis), number(total),
				STATE_TTL_MILLIS)));
	}

	/** @return the reply of an attempt to take {@code permits} for {@code owner} */
	CompletionStage<Attempt> acquire(LockScripts.Keys keys, String owner, int permits, long leaseMillis, int total) {
		return this.executor.<List<Object>>executeAsync(ACQUIRE, ReturnType.MULTI, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), number(permits), number(leaseMillis), number(total), STATE_TTL_MILLIS)
			.thenApply(Attempt::of);
	}

	/**
	 * Undoes an attempt whose reply was lost, should it have taken effect; past any availability gate, so that it
	 * runs right behind the attempt when a stalled Redis answers again.
	 */
	CompletionStage<Long> undo(LockScripts.Keys keys, String owner) {
		return this.executor.ungated()
			.<Long>executeAsync(RELEASE, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes, utf8(owner),
					keys.releasedBytes)
			.thenApply((reply) -> required(reply, RELEASE));
	}

	/**
	 * Gives a hold's permits back, as the shell's release expects the answer.
	 * @return {@code 0} when they were given back, {@code -1} when the owner held none (its lease ended)
	 */
	CompletionStage<Long> releaseHold(LockScripts.Keys keys, String owner) {
		return this.executor.<Long>executeAsync(RELEASE, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), keys.releasedBytes)
			.thenApply((reply) -> (required(reply, RELEASE) >= 0) ? 0L : -1L);
	}

	/** @return the permits freed, or {@code -1} when the owner held none */
	CompletionStage<Long> release(LockScripts.Keys keys, String owner) {
		return this.executor.<Long>executeAsync(RELEASE, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), keys.releasedBytes)
			.thenApply((reply) -> required(reply, RELEASE));
	}

	/**
	 * Gives an owner's permits back and, in the same call, to a waiting owner of this client when they fit.
	 * @return the next owner's fencing token; {@code 0} when nothing was handed over (the freed permits were told
	 * on the channel); {@code -1} when the owner held none
	 */
	CompletionStage<Long> handOff(LockScripts.Keys keys, String owner, String nextOwner, int nextPermits,
			long nextLeaseMillis) {
		return this.executor.<Long>executeAsync(HAND_OFF, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), keys.releasedBytes, utf8(nextOwner), number(nextPermits), number(nextLeaseMillis),
				STATE_TTL_MILLIS)
			.thenApply((reply) -> required(reply, HAND_OFF));
	}

	/** @return whether the lease was extended */
	CompletionStage<Boolean> renew(LockScripts.Keys keys, String owner, long leaseMillis) {
		return this.executor.<Long>executeAsync(RENEW, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), number(leaseMillis), STATE_TTL_MILLIS)
			.thenApply((reply) -> required(reply, RENEW) == 1L);
	}

	/**
	 * @param total the new total, {@code 0} to clear the run-time total
	 * @return the permits held now
	 */
	CompletionStage<Long> setTotal(LockScripts.Keys keys, int total) {
		return this.executor.<Long>executeAsync(SET_TOTAL, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				number(total), keys.releasedBytes, STATE_TTL_MILLIS)
			.thenApply((reply) -> required(reply, SET_TOTAL));
	}

	/** @return the total in force and the permits held */
	CompletionStage<Permits> permits(LockScripts.Keys keys, int configuredTotal) {
		return this.executor.<List<Object>>executeAsync(PERMITS, ReturnType.MULTI, 2, keys.lockBytes, keys.fenceBytes,
				number(configuredTotal))
			.thenApply((reply) -> {
				if (reply == null) {
					throw new IllegalStateException("Redis returned no reply to " + PERMITS);
				}
				return new Permits(((Long) reply.get(0)).intValue(), ((Long) reply.get(1)).intValue());
			});
	}

	/**
	 * The total in force and the permits held now.
	 * @param total the run-time total, else the configured one
	 * @param held the permits held by leases that have not ended
	 */
	record Permits(int total, int held) {
	}

	/**
	 * The reply of an attempt: the permits are held ({@code fencingToken}), too few are free ({@code waitMillis}
	 * until the earliest lease ends, {@code -1} when none will), or more were asked for than the total;
	 * {@code free} is how many permits the attempt left free (0 when unknown).
	 */
	record Attempt(State state, long fencingToken, long waitMillis, int total, int free) {

		enum State {

			ACQUIRED, BUSY, TOO_MANY

		}

		static Attempt of(@Nullable List<Object> reply) {
			if (reply == null) {
				throw new IllegalStateException("Redis returned no reply to " + ACQUIRE);
			}
			long outcome = (Long) reply.get(0);
			if (outcome == 1L) {
				return new Attempt(State.ACQUIRED, (Long) reply.get(1), 0, 0, ((Long) reply.get(2)).intValue());
			}
			if (outcome == 0L) {
				return new Attempt(State.BUSY, 0, (Long) reply.get(1), ((Long) reply.get(3)).intValue(),
						((Long) reply.get(2)).intValue());
			}
			return new Attempt(State.TOO_MANY, 0, 0, ((Long) reply.get(1)).intValue(), 0);
		}

		/** @return how long a waiter may sleep, at most {@code maxNanos}, without missing a lease's end */
		long sleepNanos(long maxNanos) {
			if (this.waitMillis < 0) {
				return maxNanos;
			}
			return Math.min(maxNanos, Duration.ofMillis(Math.max(this.waitMillis, 1)).toNanos());
		}

	}

}

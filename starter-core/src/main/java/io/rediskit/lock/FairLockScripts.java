package io.rediskit.lock;

import static io.rediskit.lock.LockScripts.number;
import static io.rediskit.lock.LockScripts.required;
import static io.rediskit.lock.LockScripts.script;
import static io.rediskit.lock.LockScripts.utf8;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of the fair lock: its own scripts for what a line changes (acquire, last release, leave) and
 * the lock's scripts for what it does not (re-entry, a release that is not the last, renewal), since the lock
 * hash has the lock's layout. The keys of one call are those of one name, all in its hash slot:
 * {@code <prefix>fairlock:{<name>}} (the lock hash), {@code :fence}, {@code :line} (waiters by arrival number),
 * {@code :places} (waiters by the end of their place) and the channel {@code :released}.
 */
final class FairLockScripts {

	static final String AREA = "fairlock";

	static final LuaScript ACQUIRE = script("fairlock_acquire");

	static final LuaScript RELEASE = script("fairlock_release");

	static final LuaScript LEAVE = script("fairlock_leave");

	/** Index in {@link LockScripts.Keys#further} of the line of waiters. */
	private static final int LINE = 0;

	/** Index in {@link LockScripts.Keys#further} of the waiters' places. */
	private static final int PLACES = 1;

	private final ScriptExecutor executor;

	FairLockScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** @return the keys of a name, its line and places among them, named once per handle */
	static LockScripts.Keys keys(KeyNaming naming, String name, String group) {
		return new LockScripts.Keys(naming.key(AREA, name), naming.key(AREA, name, "fence"),
				naming.key(AREA, name, "released"), name, group, naming.key(AREA, name, "line"),
				naming.key(AREA, name, "places"));
	}

	/**
	 * A first acquisition, or a renewal of the owner's place in line.
	 * @return acquired with the fencing token, or not with the ms until the holder's lease ends ({@code -1} when
	 * the lock is free and kept for the first in line)
	 */
	CompletionStage<LockScripts.Attempt> acquire(LockScripts.Keys keys, String owner, long leaseMillis,
			String requestId, long waiterTimeoutMillis) {
		return this.executor.<List<Object>>executeAsync(ACQUIRE, ReturnType.MULTI, 4, keys.lockBytes, keys.fenceBytes,
				line(keys), places(keys), utf8(owner), number(leaseMillis), utf8(requestId), LockScripts.FENCE_TTL_MILLIS,
				number(waiterTimeoutMillis), keys.releasedBytes)
			.thenApply(LockScripts.Attempt::of);
	}

	/**
	 * Releases the owner's last hold and wakes the first in line.
	 * @return {@code 0}, or {@code -1} when the owner does not hold the lock
	 */
	CompletionStage<Long> releaseLast(LockScripts.Keys keys, String owner) {
		return integer(RELEASE, keys, owner);
	}

	/**
	 * The owner stops waiting and holds nothing: leaves the line, frees a lock an attempt took.
	 * @return {@code 1} when it freed the lock, else {@code 0}
	 */
	CompletionStage<Long> leave(LockScripts.Keys keys, String owner) {
		// Past any availability gate: it undoes an attempt and runs as soon as a stalled Redis answers.
		return this.executor.ungated()
			.<Long>executeAsync(LEAVE, ReturnType.INTEGER, 3, keys.lockBytes, line(keys), places(keys), utf8(owner),
					keys.releasedBytes)
			.thenApply((reply) -> required(reply, LEAVE));
	}

	/**
	 * One more hold for an owner that holds the lock, by the lock's re-entry script.
	 * @return the hold count, or {@code -1} when the owner no longer holds the lock
	 */
	CompletionStage<Long> reenter(LockScripts.Keys keys, String owner, long leaseMillis, String requestId) {
		return this.executor.<List<Object>>executeAsync(LockScripts.REENTER, ReturnType.MULTI, 1, keys.lockBytes,
				utf8(owner), number(leaseMillis), utf8(requestId))
			.thenApply((reply) -> {
				LockScripts.Attempt attempt = LockScripts.Attempt.of(reply);
				return attempt.acquired() ? (long) attempt.holdCount() : -1L;
			});
	}

	private CompletionStage<Long> integer(LuaScript script, LockScripts.Keys keys, String owner) {
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, 3, keys.lockBytes, line(keys),
				places(keys), utf8(owner), keys.releasedBytes)
			.thenApply((reply) -> required(reply, script));
	}

	private static byte[] line(LockScripts.Keys keys) {
		return keys.furtherBytes[LINE];
	}

	private static byte[] places(LockScripts.Keys keys) {
		return keys.furtherBytes[PLACES];
	}

}

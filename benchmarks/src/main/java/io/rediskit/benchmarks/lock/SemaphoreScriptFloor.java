package io.rediskit.benchmarks.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.lock.LockSpec;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floor of the semaphore and the latch: their own scripts, read from the class path, run by bare
 * Lettuce {@code EVALSHA} with the keys and arguments redis-kit sends, on one connection all threads share. What
 * redis-kit adds on top (holds, the watchdog's bookkeeping, listeners, its executor) is what its figure loses
 * against this one.
 * <p>
 * <b>Written against the scripts' arguments</b> ({@code SemaphoreScripts}, {@code LatchScripts}, package-private
 * in the starter): change this class with them.
 * <ul>
 * <li>{@code semaphore_acquire.lua}: {@code KEYS = [<prefix>semaphore:{<name>}, ...:state]}; owner, permits,
 * lease in ms (the watchdog timeout), the configured total, the state's ttl in ms (one day). Answers
 * {@code {1, token, free}} when it took the permits.</li>
 * <li>{@code semaphore_release.lua}: the same keys; owner, channel {@code ...:released}. Answers the permits
 * freed.</li>
 * <li>{@code latch/count_down.lua}: {@code KEYS = [<prefix>latch:{<name>}, ...:applied]}; request id, ms kept
 * while counting, ms kept open, channel {@code ...:opened}.</li>
 * </ul>
 */
final class SemaphoreScriptFloor {

	private static final String SCRIPTS = "META-INF/redis-kit/scripts/lock/";

	private static final LuaScript ACQUIRE = LuaScript.fromClasspath(SCRIPTS + "semaphore_acquire.lua",
			Map.of("grant", SCRIPTS + "semaphore_grant.lua"));

	private static final LuaScript RELEASE = LuaScript.fromClasspath(SCRIPTS + "semaphore_release.lua");

	private static final LuaScript COUNT_DOWN = LuaScript.fromClasspath("META-INF/redis-kit/scripts/latch/count_down.lua");

	private static final byte[] STATE_TTL_MILLIS = ascii(Duration.ofDays(1).toMillis());

	private static final byte[] LEASE_MILLIS = ascii(LockSpec.defaults().watchdogTimeout().toMillis());

	private static final byte[] ONE = ascii(1);

	private static final byte[] ABANDONED_AFTER_MILLIS = ascii(Duration.ofDays(1).toMillis());

	private static final byte[] OPEN_FOR_MILLIS = ascii(Duration.ofHours(1).toMillis());

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final KeyNaming keyNaming = KeyNaming.defaults();

	private final RedisCommands<byte[], byte[]> commands;

	/**
	 * Loads the scripts, so that no call pays for a {@code NOSCRIPT}.
	 * @param connection the connection every call of every thread goes through; the caller closes it
	 */
	SemaphoreScriptFloor(StatefulRedisConnection<byte[], byte[]> connection) {
		this.commands = connection.sync();
		for (LuaScript script : List.of(ACQUIRE, RELEASE, COUNT_DOWN)) {
			String loaded = this.commands.scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			if (!script.sha1().equals(loaded)) {
				throw new IllegalStateException("SCRIPT LOAD of " + script + " returned SHA-1 " + loaded);
			}
		}
	}

	/**
	 * One permit of a semaphore of its own taken and given back: it never waits, so it is for the uncontended
	 * scenario only.
	 * @param name the semaphore name, not one a redis-kit semaphore of the run uses
	 * @param total the configured total
	 */
	void acquireAndRelease(String name, int total) {
		byte[][] keys = { bytes(this.keyNaming.key("semaphore", name)),
				bytes(this.keyNaming.key("semaphore", name, "state")) };
		byte[] owner = bytes(this.instanceId + ":l" + this.sequence.incrementAndGet());
		List<Object> reply = this.commands.evalsha(ACQUIRE.sha1(), ScriptOutputType.MULTI, keys, owner, ONE,
				LEASE_MILLIS, ascii(total), STATE_TTL_MILLIS);
		if ((Long) reply.get(0) != 1L) {
			throw new IllegalStateException("Semaphore '" + name + "' has no free permit");
		}
		Long freed = this.commands.evalsha(RELEASE.sha1(), ScriptOutputType.INTEGER, keys, owner,
				bytes(this.keyNaming.key("semaphore", name, "released")));
		if (freed != 1L) {
			throw new IllegalStateException("Semaphore '" + name + "' freed " + freed);
		}
	}

	/**
	 * One count-down of a latch.
	 * @param name the latch name, set to a count by the caller
	 */
	void countDown(String name) {
		byte[][] keys = { bytes(this.keyNaming.key("latch", name)), bytes(this.keyNaming.key("latch", name, "applied")) };
		this.commands.evalsha(COUNT_DOWN.sha1(), ScriptOutputType.INTEGER, keys,
				bytes(this.instanceId + ":" + Long.toString(this.sequence.incrementAndGet(), 36)), ABANDONED_AFTER_MILLIS,
				OPEN_FOR_MILLIS, bytes(this.keyNaming.key("latch", name, "opened")));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}

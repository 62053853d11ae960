package io.rediskit.benchmarks.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.lock.LockSpec;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floor of an uncontended {@code lock()} + {@code unlock()}: the lock's own acquire and release
 * scripts, read from the class path where the starter keeps them, run by bare Lettuce {@code EVALSHA} with the
 * keys and arguments redis-kit sends for a first acquisition and a last release with nobody waiting, on one
 * connection all threads share. What redis-kit adds on top (holds, the watchdog's bookkeeping, the local
 * queue, listeners, its executor) is what its figure loses against this one.
 * <p>
 * <b>Written against the lock's scripts</b> ({@code LockScripts.acquire} and {@code LockScripts.releaseLast},
 * package-private in the starter, which the benchmark cannot call): change this class with them.
 * <ul>
 * <li>{@code acquire.lua}: {@code KEYS = [<prefix>lock:{<name>}, <prefix>lock:{<name>}:fence]}; owner, lease in
 * ms (the watchdog timeout, 30000 by default), request id, fence key ttl in ms (one day), {@code "0"} (not a
 * re-entry). Answers {@code {1, token, 1}} when it took the lock.</li>
 * <li>{@code release_last.lua}, the release of an owner's only hold when no local thread waits:
 * {@code KEYS = [<prefix>lock:{<name>}]}; owner, channel {@code <key>:released}. Answers {@code 0} when the lock
 * is free, after a {@code DEL} and a {@code PUBLISH} to the channel.</li>
 * </ul>
 * Owners are an id per floor plus {@code :t<thread id>}, request ids a counter in base 36, as redis-kit makes
 * them. Lock names are the caller's, so the floor's keys stay apart from redis-kit's.
 */
final class LockScriptFloor {

	private static final String SCRIPTS = "META-INF/redis-kit/scripts/lock/";

	private static final LuaScript ACQUIRE = LuaScript.fromClasspath(SCRIPTS + "acquire.lua");

	private static final LuaScript RELEASE = LuaScript.fromClasspath(SCRIPTS + "release_last.lua");

	// LockScripts.FENCE_TTL, package-private in the starter.
	private static final byte[] FENCE_TTL_MILLIS = ascii(Duration.ofDays(1).toMillis());

	// lock() without a lease time takes a watchdog lease of the watchdog timeout.
	private static final byte[] LEASE_MILLIS = ascii(LockSpec.defaults().watchdogTimeout().toMillis());

	private static final byte[] ZERO = ascii(0);


	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final KeyNaming keyNaming = KeyNaming.defaults();

	private final RedisCommands<byte[], byte[]> commands;

	/**
	 * Loads both scripts, so that no call pays for a {@code NOSCRIPT}.
	 * @param connection the connection every call of every thread goes through; the caller closes it
	 */
	LockScriptFloor(StatefulRedisConnection<byte[], byte[]> connection) {
		this.commands = connection.sync();
		for (LuaScript script : List.of(ACQUIRE, RELEASE)) {
			String loaded = this.commands.scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			if (!script.sha1().equals(loaded)) {
				throw new IllegalStateException("SCRIPT LOAD of " + script + " returned SHA-1 " + loaded);
			}
		}
	}

	/**
	 * One lock's acquire + release pair, for one thread at a time: it never waits, so a second owner fails.
	 * @param name the lock name, not one a redis-kit lock of the run uses
	 * @return the pair
	 */
	LockCycle lock(String name) {
		byte[][] keys = { bytes(this.keyNaming.key("lock", name)), bytes(this.keyNaming.key("lock", name, "fence")) };
		byte[][] lockKey = { keys[0] };
		byte[] channel = bytes(this.keyNaming.key("lock", name, "released"));
		return new LockCycle() {

			@Override
			public void lock() {
				List<Object> reply = LockScriptFloor.this.commands.evalsha(ACQUIRE.sha1(), ScriptOutputType.MULTI, keys,
						owner(), LEASE_MILLIS, requestId(), FENCE_TTL_MILLIS, ZERO);
				if ((Long) reply.get(0) != 1L) {
					throw new IllegalStateException("Lock '" + name + "' is held by another owner");
				}
			}

			@Override
			public void unlock() {
				Long reply = LockScriptFloor.this.commands.evalsha(RELEASE.sha1(), ScriptOutputType.INTEGER, lockKey,
						owner(), channel);
				if (reply != 0L) {
					throw new IllegalStateException("Lock '" + name + "' was not freed: " + reply);
				}
			}

		};
	}

	private byte[] owner() {
		return bytes(this.instanceId + ":t" + Thread.currentThread().getId());
	}

	private byte[] requestId() {
		return bytes(Long.toString(this.sequence.incrementAndGet(), 36));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}

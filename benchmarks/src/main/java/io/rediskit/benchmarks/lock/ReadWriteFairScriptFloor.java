package io.rediskit.benchmarks.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.lock.WaiterLineSpec;
import io.rediskit.lock.WaiterLineSpec;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floor of an uncontended pair of the read-write and fair locks: their own scripts, read from the
 * class path, run by bare Lettuce {@code EVALSHA} with the keys and arguments redis-kit sends for a first hold and
 * a last release, on one connection all threads share.
 * <p>
 * <b>Written against the scripts</b> ({@code ReadWriteLockScripts}, {@code FairLockScripts}, package-private in
 * the starter): change this class with them.
 * <ul>
 * <li>read: {@code rwlock_acquire.lua} ({@code KEYS = [hash, :readers, :writers, :fence]}; owner, lease,
 * fence ttl, {@code read}, 0), then {@code rwlock_read_count.lua} ({@code KEYS = [hash, :readers]}; owner, 0,
 * lease, channel).</li>
 * <li>write: {@code rwlock_acquire.lua} (the same keys; owner, lease, fence ttl, {@code write}, waiter timeout),
 * then {@code rwlock_write_count.lua} with 0.</li>
 * <li>fair: {@code fairlock_acquire.lua} ({@code KEYS = [hash, :fence, :line, :places]}; owner, lease, request
 * id, fence ttl, waiter timeout, channel), then {@code fairlock_release.lua} ({@code KEYS = [hash, :line,
 * :places]}; owner, channel).</li>
 * </ul>
 */
final class ReadWriteFairScriptFloor {

	private static final String SCRIPTS = "META-INF/redis-kit/scripts/lock/";

	private static final LuaScript ACQUIRE = LuaScript.fromClasspath(SCRIPTS + "rwlock_acquire.lua");

	private static final LuaScript READ_COUNT = LuaScript.fromClasspath(SCRIPTS + "rwlock_read_count.lua");

	private static final LuaScript WRITE_COUNT = LuaScript.fromClasspath(SCRIPTS + "rwlock_write_count.lua");

	private static final LuaScript FAIR = LuaScript.fromClasspath(SCRIPTS + "fairlock_acquire.lua");

	private static final LuaScript FAIR_RELEASE = LuaScript.fromClasspath(SCRIPTS + "fairlock_release.lua");

	private static final byte[] FENCE_TTL_MILLIS = ascii(Duration.ofDays(1).toMillis());

	private static final byte[] LEASE_MILLIS = ascii(WaiterLineSpec.defaults().watchdogTimeout().toMillis());

	private static final byte[] WAITER_MILLIS = ascii(WaiterLineSpec.defaults().waiterTimeout().toMillis());

	private static final byte[] ZERO = ascii(0);

	private static final byte[] READ = "read".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] WRITE = "write".getBytes(StandardCharsets.US_ASCII);

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final KeyNaming keyNaming = KeyNaming.defaults();

	private final RedisCommands<byte[], byte[]> commands;

	/**
	 * Loads the scripts, so that no call pays for a {@code NOSCRIPT}.
	 * @param connection the connection every call of every thread goes through; the caller closes it
	 */
	ReadWriteFairScriptFloor(StatefulRedisConnection<byte[], byte[]> connection) {
		this.commands = connection.sync();
		for (LuaScript script : List.of(ACQUIRE, READ_COUNT, WRITE_COUNT, FAIR, FAIR_RELEASE)) {
			String loaded = this.commands.scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			if (!script.sha1().equals(loaded)) {
				throw new IllegalStateException("SCRIPT LOAD of " + script + " returned SHA-1 " + loaded);
			}
		}
	}

	/** @return a read pair on {@code name}, which other floor readers may share */
	LockCycle read(String name) {
		return readWrite(name, ACQUIRE, READ_COUNT, new byte[][] { LEASE_MILLIS, FENCE_TTL_MILLIS, READ, ZERO });
	}

	/** @return a write pair on {@code name}, for one thread at a time */
	LockCycle write(String name) {
		return readWrite(name, ACQUIRE, WRITE_COUNT,
				new byte[][] { LEASE_MILLIS, FENCE_TTL_MILLIS, WRITE, WAITER_MILLIS });
	}

	private LockCycle readWrite(String name, LuaScript acquire, LuaScript count, byte[][] acquireArguments) {
		byte[][] keys = { bytes(this.keyNaming.key("rwlock", name)), bytes(this.keyNaming.key("rwlock", name, "readers")),
				bytes(this.keyNaming.key("rwlock", name, "writers")), bytes(this.keyNaming.key("rwlock", name, "fence")) };
		byte[][] countKeys = { keys[0], keys[1] };
		byte[] channel = bytes(this.keyNaming.key("rwlock", name, "released"));
		return new LockCycle() {

			@Override
			public void lock() {
				byte[][] arguments = new byte[acquireArguments.length + 1][];
				arguments[0] = owner();
				System.arraycopy(acquireArguments, 0, arguments, 1, acquireArguments.length);
				List<Object> reply = ReadWriteFairScriptFloor.this.commands.evalsha(acquire.sha1(),
						ScriptOutputType.MULTI, keys, arguments);
				if ((Long) reply.get(0) != 1L) {
					throw new IllegalStateException("Lock '" + name + "' is not free for " + acquire);
				}
			}

			@Override
			public void unlock() {
				ReadWriteFairScriptFloor.this.commands.evalsha(count.sha1(), ScriptOutputType.INTEGER, countKeys,
						owner(), ZERO, LEASE_MILLIS, channel);
			}

		};
	}

	/** @return a fair pair on {@code name}, for one thread at a time */
	LockCycle fair(String name) {
		byte[][] keys = { bytes(this.keyNaming.key("fairlock", name)),
				bytes(this.keyNaming.key("fairlock", name, "fence")), bytes(this.keyNaming.key("fairlock", name, "line")),
				bytes(this.keyNaming.key("fairlock", name, "places")) };
		byte[][] releaseKeys = { keys[0], keys[2], keys[3] };
		byte[] channel = bytes(this.keyNaming.key("fairlock", name, "released"));
		return new LockCycle() {

			@Override
			public void lock() {
				List<Object> reply = ReadWriteFairScriptFloor.this.commands.evalsha(FAIR.sha1(), ScriptOutputType.MULTI,
						keys, owner(), LEASE_MILLIS, requestId(), FENCE_TTL_MILLIS, WAITER_MILLIS, channel);
				if ((Long) reply.get(0) != 1L) {
					throw new IllegalStateException("Fair lock '" + name + "' is held by another owner");
				}
			}

			@Override
			public void unlock() {
				ReadWriteFairScriptFloor.this.commands.evalsha(FAIR_RELEASE.sha1(), ScriptOutputType.INTEGER,
						releaseKeys, owner(), channel);
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

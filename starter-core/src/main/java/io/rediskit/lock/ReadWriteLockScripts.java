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
 * Every Redis call of the read-write lock, one script per job, keys of one name in its hash slot:
 * {@code <prefix>rwlock:{<name>}} (a hash of the writer and each reader: hold counts, fencing tokens, the
 * writer's lease end), {@code :readers} (readers by the end of their lease), {@code :writers} (waiting writers by
 * the end of their place), {@code :fence} and the channel {@code :released}. Every lease end is the server's
 * clock in ms; a script drops the holders whose lease ended before it decides.
 */
final class ReadWriteLockScripts {

	static final String AREA = "rwlock";

	private static final byte[] READ = utf8("read");

	private static final byte[] WRITE = utf8("write");

	private static final byte[] ZERO = number(0);

	static final LuaScript ACQUIRE = script("rwlock_acquire");

	static final LuaScript READ_COUNT = script("rwlock_read_count");

	static final LuaScript WRITE_COUNT = script("rwlock_write_count");

	static final LuaScript READ_RENEW = script("rwlock_read_renew");

	static final LuaScript WRITE_RENEW = script("rwlock_write_renew");

	static final LuaScript WRITE_LEAVE = script("rwlock_write_leave");

	static final LuaScript HOLDERS = script("rwlock_holders");

	private final ScriptExecutor executor;

	ReadWriteLockScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** Index in {@link LockScripts.Keys#further} of the hash of the writer and the readers. */
	private static final int HASH = 0;

	/** Index in {@link LockScripts.Keys#further} of the readers. */
	private static final int READERS = 1;

	/** Index in {@link LockScripts.Keys#further} of the waiting writers. */
	private static final int WRITERS = 2;

	/**
	 * The keys of one side, named once per handle (both sides carry every key of the name). The two sides'
	 * {@code lock} keys differ (the hash for the write lock, the readers for the read lock), so that an owner's read
	 * and write holds are two holds of the registry.
	 */
	static LockScripts.Keys keys(KeyNaming naming, String name, String group, boolean read) {
		String hash = naming.key(AREA, name);
		String readers = naming.key(AREA, name, "readers");
		return new LockScripts.Keys(read ? readers : hash, naming.key(AREA, name, "fence"),
				naming.key(AREA, name, "released"), name, group, hash, readers, naming.key(AREA, name, "writers"));
	}

	/** @return the key of the readers, the read side's lock key, which the registry's holds are kept by */
	static String readersKey(LockScripts.Keys keys) {
		return keys.further[READERS];
	}

	CompletionStage<LockScripts.Attempt> acquireRead(LockScripts.Keys keys, String owner, long leaseMillis) {
		// A reader takes no place among the waiting writers: the place's length is not read.
		return acquire(keys, READ, owner, leaseMillis, ZERO);
	}

	/** @param waiterTimeoutMillis how long a place among the waiting writers lasts, in ms as decimal digits */
	CompletionStage<LockScripts.Attempt> acquireWrite(LockScripts.Keys keys, String owner, long leaseMillis,
			byte[] waiterTimeoutMillis) {
		return acquire(keys, WRITE, owner, leaseMillis, waiterTimeoutMillis);
	}

	/** One script for both sides, which differ only in who may hold: one round trip either way. */
	private CompletionStage<LockScripts.Attempt> acquire(LockScripts.Keys keys, byte[] side, String owner,
			long leaseMillis, byte[] waiterTimeoutMillis) {
		byte[][] further = keys.furtherBytes;
		return this.executor.<List<Object>>executeAsync(ACQUIRE, ReturnType.MULTI, 4, further[HASH],
				further[READERS], further[WRITERS], keys.fenceBytes, utf8(owner), number(leaseMillis),
				LockScripts.FENCE_TTL_MILLIS, side, waiterTimeoutMillis)
			.thenApply(LockScripts.Attempt::of);
	}

	/**
	 * Sets the hold count of an owner's read or write hold; {@code 0} ends it.
	 * @return the holds left, or {@code -1} when the owner does not hold that side
	 */
	CompletionStage<Long> setCount(LockScripts.Keys keys, boolean read, String owner, long count, long leaseMillis) {
		LuaScript script = read ? READ_COUNT : WRITE_COUNT;
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, 2, keys.furtherBytes[HASH],
				keys.furtherBytes[READERS], utf8(owner), number(count), number(leaseMillis), keys.releasedBytes)
			.thenApply((reply) -> required(reply, script));
	}

	/** @return whether the owner still held that side, whose lease now runs for {@code leaseMillis} */
	CompletionStage<Boolean> renew(LockScripts.Keys keys, boolean read, String owner, long leaseMillis) {
		LuaScript script = read ? READ_RENEW : WRITE_RENEW;
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, 2, keys.furtherBytes[HASH],
				keys.furtherBytes[READERS], utf8(owner), number(leaseMillis))
			.thenApply((reply) -> required(reply, script) == 1L);
	}

	/** The owner stops waiting to write and holds no write hold: its place goes, a write an attempt took ends. */
	CompletionStage<Long> leaveWrite(LockScripts.Keys keys, String owner) {
		// Past any availability gate: it undoes an attempt and runs as soon as a stalled Redis answers.
		byte[][] further = keys.furtherBytes;
		return this.executor.ungated()
			.<Long>executeAsync(WRITE_LEAVE, ReturnType.INTEGER, 3, further[HASH], further[READERS],
					further[WRITERS], utf8(owner), keys.releasedBytes)
			.thenApply((reply) -> required(reply, WRITE_LEAVE));
	}

	/** @return who holds the lock now, as {@code owner} sees it */
	CompletionStage<Holders> holders(LockScripts.Keys keys, String owner) {
		return this.executor.<List<Object>>executeAsync(HOLDERS, ReturnType.MULTI, 2, keys.furtherBytes[HASH],
				keys.furtherBytes[READERS], utf8(owner))
			.thenApply((reply) -> {
				if (reply == null) {
					throw new IllegalStateException("Redis returned no reply to " + HOLDERS);
				}
				return new Holders((Long) reply.get(0) == 1L, ((Long) reply.get(1)).intValue(),
						((Long) reply.get(2)).intValue(), ((Long) reply.get(3)).intValue());
			});
	}

	/**
	 * Who holds a read-write lock now.
	 * @param writing whether a writer holds it
	 * @param readers how many owners read
	 * @param ownWrites the write holds of the owner asked about
	 * @param ownReads the read holds of the owner asked about
	 */
	record Holders(boolean writing, int readers, int ownWrites, int ownReads) {
	}

}

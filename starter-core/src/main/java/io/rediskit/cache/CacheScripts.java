package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of one cache: one method per operation, each one round trip (a script through the
 * {@link ScriptExecutor}, whose {@code EVALSHA} sends the body once on {@code NOSCRIPT}, or a plain command),
 * with its arguments in order and its reply read. The keys of one entry, its value
 * ({@code <prefix>cache:{<cache>:<key>}}), its load lease ({@code :load}) and the outcome of its last load that
 * stored nothing ({@code :outcome}), share one hash slot. Failures are thrown as the executors throw them; what an
 * outage means is the caller's policy.
 */
final class CacheScripts {

	static final LuaScript CLAIM = script("claim");

	static final LuaScript FILL = script("fill");

	static final LuaScript PUT = script("put");

	static final LuaScript PUT_IF_ABSENT = script("put_if_absent");

	static final LuaScript EVICT = script("evict");

	static final LuaScript READ = script("read");

	static final LuaScript LEASE = script("lease");

	static final byte[] NONE = new byte[0];

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final String name;

	private final byte[] channel;

	private final byte[] lease;

	/**
	 * @param name the cache's name
	 * @param channelName the cache's channel, on which writes, evictions and load outcomes are published
	 * @param leaseMillis the load lease, the cache's load timeout; also how long an outcome is kept
	 */
	CacheScripts(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming, String name,
			String channelName, long leaseMillis) {
		this.scripts = scripts;
		this.commands = commands;
		this.keyNaming = keyNaming;
		this.name = name;
		this.channel = channelName.getBytes(StandardCharsets.UTF_8);
		this.lease = number(leaseMillis);
	}

	/**
	 * Reads the entry or claims its load lease ({@code claim.lua}).
	 * @param token the caller's token, the lease's value if it takes it
	 * @param holder the token of the load the caller waits for, {@link #NONE} when it waits for none
	 */
	Claim claim(String id, byte[] token, byte[] holder) {
		return Claim.of(this.scripts.execute(CLAIM, ReturnType.MULTI, 3, claimArguments(id, token, holder)));
	}

	/** {@link #claim} without blocking. */
	CompletableFuture<Claim> claimAsync(String id, byte[] token, byte[] holder) {
		return this.scripts.<List<Object>>executeAsync(CLAIM, ReturnType.MULTI, 3, claimArguments(id, token, holder))
			.toCompletableFuture()
			.thenApply(Claim::of);
	}

	private byte[][] claimArguments(String id, byte[] token, byte[] holder) {
		return new byte[][] { valueKey(id), leaseKey(id), outcomeKey(id), token, this.lease, holder };
	}

	/**
	 * Ends a load ({@code fill.lua}): stores the bytes unless {@code ttlMillis} is 0, gives up the lease the token
	 * holds and publishes the message; an outcome that stores nothing is kept for the waiters that poll.
	 */
	void fill(String id, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		this.scripts.execute(FILL, ReturnType.INTEGER, 3, fillArguments(id, token, bytes, ttlMillis, message));
	}

	/** {@link #fill} without blocking. */
	CompletableFuture<@Nullable Object> fillAsync(String id, byte[] token, byte[] bytes, long ttlMillis,
			byte[] message) {
		return this.scripts
			.<Object>executeAsync(FILL, ReturnType.INTEGER, 3, fillArguments(id, token, bytes, ttlMillis, message))
			.toCompletableFuture();
	}

	private byte[][] fillArguments(String id, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		return new byte[][] { valueKey(id), leaseKey(id), outcomeKey(id), token, bytes, number(ttlMillis),
				this.channel, message, this.lease };
	}

	/** Writes the entry and publishes its invalidation ({@code put.lua}). */
	void put(String id, byte[] bytes, long ttlMillis) {
		this.scripts.execute(PUT, ReturnType.INTEGER, 1, valueKey(id), bytes, number(ttlMillis), this.channel,
				written(id));
	}

	/** {@link #put} without blocking. */
	CompletableFuture<@Nullable Object> putAsync(String id, byte[] bytes, long ttlMillis) {
		return this.scripts
			.<Object>executeAsync(PUT, ReturnType.INTEGER, 1, valueKey(id), bytes, number(ttlMillis), this.channel,
					written(id))
			.toCompletableFuture();
	}

	/**
	 * Writes the entry unless it exists ({@code put_if_absent.lua}); a write publishes its invalidation.
	 * @return the bytes the entry holds, or {@code null} when it was written
	 */
	byte @Nullable [] putIfAbsent(String id, byte[] bytes, long ttlMillis) {
		return this.scripts.execute(PUT_IF_ABSENT, ReturnType.VALUE, 1, valueKey(id), bytes, number(ttlMillis),
				this.channel, written(id));
	}

	/**
	 * Deletes the entry and publishes its invalidation ({@code evict.lua}).
	 * @return whether it existed
	 */
	boolean evict(String id) {
		Long deleted = this.scripts.execute(EVICT, ReturnType.INTEGER, 1, valueKey(id), this.channel, written(id));
		return deleted != null && deleted > 0;
	}

	/** @return the entry's bytes ({@code GET}), or {@code null} when it does not exist */
	byte @Nullable [] get(String id) {
		return this.commands.execute("GET", ReturnType.VALUE, valueKey(id));
	}

	/**
	 * Reads the entry with the time it has left ({@code read.lua}).
	 * @return the entry, or {@code null} when it does not exist
	 */
	@Nullable Entry read(String id) {
		return Entry.of(this.scripts.execute(READ, ReturnType.MULTI, 1, valueKey(id)));
	}

	/** {@link #read} without blocking. */
	CompletableFuture<@Nullable Entry> readAsync(String id) {
		return this.scripts.<List<Object>>executeAsync(READ, ReturnType.MULTI, 1, valueKey(id))
			.toCompletableFuture()
			.thenApply(Entry::of);
	}

	/**
	 * Takes the load lease of an entry for a reload in the background ({@code lease.lua}).
	 * @param pttl the entry's PTTL when the reload was decided
	 * @return whether the caller holds the lease now: not when another caller holds it or the entry was rewritten
	 */
	boolean lease(String id, byte[] token, long pttl) {
		Long taken = this.scripts.execute(LEASE, ReturnType.INTEGER, 2, valueKey(id), leaseKey(id), token,
				this.lease, number(pttl));
		return taken != null && taken == 1;
	}

	/** Tells every instance that the cache was cleared ({@code PUBLISH}). */
	void publishCleared() {
		this.commands.execute("PUBLISH", ReturnType.INTEGER, this.channel,
				CacheMessages.of(CacheMessages.CLEARED, "", NONE));
	}

	private byte[] valueKey(String id) {
		return this.keyNaming.key(CacheParts.AREA, this.name + ":" + id).getBytes(StandardCharsets.UTF_8);
	}

	private byte[] leaseKey(String id) {
		return this.keyNaming.key(CacheParts.AREA, this.name + ":" + id, "load").getBytes(StandardCharsets.UTF_8);
	}

	/** The outcome of the entry's last load that stored nothing, for waiters that poll (see fill.lua). */
	private byte[] outcomeKey(String id) {
		return this.keyNaming.key(CacheParts.AREA, this.name + ":" + id, "outcome").getBytes(StandardCharsets.UTF_8);
	}

	/** @return a fresh token for a load lease */
	static byte[] newToken() {
		return UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] written(String id) {
		return CacheMessages.of(CacheMessages.WRITTEN, id, NONE);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static LuaScript script(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/" + name + ".lua");
	}

	/** The reply of {@link #claim}: what the caller found, with the bytes it carries. */
	record Claim(Claimed state, byte[] bytes, long pttl) {

		static Claim of(@Nullable List<Object> reply) {
			if (reply == null) {
				throw new IllegalStateException("Redis returned no reply to " + CLAIM);
			}
			return switch (((Long) reply.get(0)).intValue()) {
				case 1 -> new Claim(Claimed.FOUND, (byte[]) reply.get(1), (Long) reply.get(2));
				case 2 -> new Claim(Claimed.LEASED, NONE, -1);
				case 3 -> new Claim(Claimed.ENDED, (byte[]) reply.get(1), -1);
				default -> new Claim(Claimed.BUSY, (byte[]) reply.get(1), -1);
			};
		}

	}

	/** What a claim found. */
	enum Claimed {

		/** The entry exists: its bytes and PTTL. */
		FOUND,

		/** The caller holds the load lease now. */
		LEASED,

		/** The load waited for ended storing nothing: the message it published. */
		ENDED,

		/** Another caller holds the lease: its token. */
		BUSY

	}

	/**
	 * An entry read with its time left.
	 * @param bytes the stored bytes
	 * @param pttl the ms it has left, -1 without expiry
	 */
	record Entry(byte[] bytes, long pttl) {

		static @Nullable Entry of(@Nullable List<Object> reply) {
			return (reply == null || reply.isEmpty()) ? null : new Entry((byte[]) reply.get(0), (Long) reply.get(1));
		}

	}

}

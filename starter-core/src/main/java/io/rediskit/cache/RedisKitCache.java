package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.rediskit.cache.CacheListener.WaitOutcome;
import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.support.LuaScript;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.cache.support.AbstractValueAdaptingCache;
import org.springframework.cache.support.NullValue;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * One cache of a {@link RedisKitCacheManager}: entries in Redis under {@code <prefix>cache:{<cache>:<key>}},
 * each with the cache's TTL shortened by jitter, written by {@code @CachePut} and {@code @Cacheable}, deleted by
 * {@code @CacheEvict}.
 * <ul>
 * <li><b>Single-flight</b> ({@link #get(Object, Callable)}, what {@code @Cacheable(sync = true)} calls): of all the
 * callers missing one entry, in this instance and every other, one runs the loader under a lease of the load
 * timeout; the others wait (within an instance, behind one of them) and receive its value, or its failure
 * ({@link CacheLoadFailedException} in other instances), without calling the loader. Nothing is cached after a
 * failure, so the next miss loads again. A caller that waited the whole load timeout (the loader hangs, or its
 * instance died holding the lease) loads itself.</li>
 * <li><b>Redis down</b>: a read that Redis cannot answer is a miss (the method runs), a load runs the loader
 * without caching, a write or eviction is skipped; one warning per interval per cache, never an exception. An
 * eviction skipped this way leaves the entry until its TTL ends.</li>
 * <li><b>Undecodable values</b> (another version of the class, bytes written by something else, a hostile
 * payload) are misses, counted by {@link CacheListener#onUndecodable}; the next write replaces them.</li>
 * <li><b>Near cache</b> (when the spec has one): hits are answered from memory while the invalidation
 * subscription is trusted; see {@link RedisKitCacheManager}.</li>
 * </ul>
 * Keys are the {@code toString()} of strings, numbers, enums, {@link java.util.UUID}s, dates and times,
 * {@link SimpleKey}s, or of any class that overrides it (records do); another key fails with a message naming
 * its class. Values held in the near cache are shared by every caller: treat them as immutable.
 */
public final class RedisKitCache extends AbstractValueAdaptingCache {

	private static final Log logger = LogFactory.getLog(RedisKitCache.class);

	static final LuaScript CLAIM = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/claim.lua");

	static final LuaScript FILL = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/fill.lua");

	static final LuaScript PUT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/put.lua");

	static final LuaScript PUT_IF_ABSENT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/put_if_absent.lua");

	static final LuaScript EVICT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/evict.lua");

	/** How a stored null looks in Redis: not JSON, so no serializer's output starts with it by accident. */
	static final byte[] NULL_MARKER = { 0, 'n', 'u', 'l', 'l' };

	/** How often a waiter asks Redis itself, in case the message of the load it waits for is lost. */
	private static final long RECHECK_MILLIS = 200;

	private static final byte[] NONE = new byte[0];

	private final String name;

	private final CacheSpec spec;

	private final CacheParts parts;

	private final byte[] channel;

	private final @Nullable NearCache near;

	private volatile boolean subscribed;

	private final ThrottledLog outages;

	/** The callers of this instance loading or waiting for an entry: one per key talks to Redis. */
	private final ConcurrentHashMap<String, CompletableFuture<Object>> inFlight = new ConcurrentHashMap<>();

	/** The outcome of another instance's load, by key, for the one caller of this instance waiting for it. */
	private final ConcurrentHashMap<String, CompletableFuture<Message>> awaited = new ConcurrentHashMap<>();

	RedisKitCache(String name, CacheSpec spec, CacheParts parts) {
		super(spec.cacheNullValues());
		this.name = name;
		this.spec = spec;
		this.parts = parts;
		this.channel = parts.keyNaming().areaKey(CacheParts.AREA, "events:" + name).getBytes(StandardCharsets.UTF_8);
		this.near = (spec.nearCache() != null) ? new NearCache(spec.nearCache()) : null;
		this.outages = new ThrottledLog(logger, parts.outageLogInterval(), "Cache '" + name
				+ "' cannot reach Redis; reads go to the loader, writes and evictions are skipped");
	}

	/** Subscribes the cache's channel; without it waiters poll and the near cache stays bypassed. */
	void subscribe() {
		CacheSignals signals = this.parts.signals();
		if (signals == null) {
			return;
		}
		try {
			signals.watch(channelName(), this::onMessage);
			if (this.near != null) {
				signals.onTrustLost(this.near::clear);
			}
			this.subscribed = true;
		}
		catch (RuntimeException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			this.outages.warn(ex, "its channel is not subscribed: waiters poll and the near cache is bypassed");
		}
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public Object getNativeCache() {
		return this;
	}

	/** @return this cache's spec */
	public CacheSpec spec() {
		return this.spec;
	}

	/** @return the entries in this instance's near cache, 0 without one */
	public int nearCacheSize() {
		return (this.near != null) ? this.near.size() : 0;
	}

	/** @return whether the near cache answers reads now: it exists and its invalidations arrive */
	public boolean nearCacheActive() {
		CacheSignals signals = this.parts.signals();
		return this.near != null && this.subscribed && signals != null && signals.trusted();
	}

	@Override
	protected @Nullable Object lookup(Object key) {
		String id = keyString(key);
		Object cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			return cached;
		}
		long epoch = epoch();
		long stamp = (this.near != null) ? this.near.stamp() : 0;
		boolean keep = nearCacheActive();
		byte[] raw;
		try {
			raw = this.parts.commands().execute("GET", ReturnType.VALUE, valueKey(id));
		}
		catch (RuntimeException ex) {
			outage(ex);
			miss();
			return null;
		}
		Object value = (raw != null) ? decode(raw) : null;
		if (value == null) {
			miss();
			return null;
		}
		if (keep) {
			this.near.put(id, value, stamp, epoch);
		}
		this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
		return value;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
		Objects.requireNonNull(valueLoader, "valueLoader must not be null");
		String id = keyString(key);
		Object cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			return (T) unwrap(cached);
		}
		CompletableFuture<Object> mine = new CompletableFuture<>();
		CompletableFuture<Object> ahead = this.inFlight.putIfAbsent(id, mine);
		if (ahead != null) {
			return (T) unwrap(behind(ahead, key, valueLoader));
		}
		try {
			Object value = participate(key, id, valueLoader);
			mine.complete(value);
			return (T) unwrap(value);
		}
		catch (RuntimeException | Error ex) {
			mine.completeExceptionally(ex);
			throw ex;
		}
		finally {
			this.inFlight.remove(id, mine);
		}
	}

	/** A loaded null travels as {@link NullValue} whether or not nulls are cached. */
	private static @Nullable Object unwrap(Object value) {
		return (value == NullValue.INSTANCE) ? null : value;
	}

	/** Waits for the caller of this instance ahead on the same key, within the load timeout, then loads itself. */
	private Object behind(CompletableFuture<Object> ahead, Object key, Callable<?> loader) {
		try {
			return ahead.get(this.spec.loadTimeout().toMillis() + RECHECK_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (ex.getCause() instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, ex.getCause());
		}
		catch (TimeoutException ex) {
			return loadAlone(key, loader);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ValueRetrievalException(key, loader, ex);
		}
	}

	/** The one caller of this instance for a key: reads, claims the load, loads or waits for another instance. */
	private Object participate(Object key, String id, Callable<?> loader) {
		CompletableFuture<Message> outcome = new CompletableFuture<>();
		this.awaited.put(id, outcome);
		try {
			byte[] valueKey = valueKey(id);
			byte[] leaseKey = leaseKey(id);
			byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
			byte[] lease = number(this.spec.loadTimeout().toMillis());
			long start = System.nanoTime();
			long deadline = start + this.spec.loadTimeout().toNanos();
			boolean waited = false;
			while (true) {
				long epoch = epoch();
				long stamp = (this.near != null) ? this.near.stamp() : 0;
				boolean keep = nearCacheActive();
				List<Object> reply;
				try {
					reply = this.parts.scripts().execute(CLAIM, ReturnType.MULTI, 2, valueKey, leaseKey, token, lease);
				}
				catch (RuntimeException ex) {
					outage(ex);
					return loadAlone(key, loader);
				}
				long code = (Long) reply.get(0);
				if (code == 1) {
					Object value = decode((byte[]) reply.get(1));
					if (value == null) {
						// Unreadable bytes hold the entry: load and overwrite them rather than wait for their TTL.
						return loadAndPut(key, id, loader);
					}
					if (keep) {
						this.near.put(id, value, stamp, epoch);
					}
					this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
					if (waited) {
						waitEnded(start, WaitOutcome.VALUE);
					}
					return value;
				}
				if (code == 2) {
					if (!waited) {
						miss();
					}
					return loadAsOwner(key, id, loader, valueKey, leaseKey, token);
				}
				if (!waited) {
					miss();
					waited = true;
				}
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					waitEnded(start, WaitOutcome.TIMEOUT);
					return loadAlone(key, loader);
				}
				Message message = awaitMessage(outcome, Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)),
						key, loader);
				if (message != null) {
					return received(message, key, id, loader, start);
				}
			}
		}
		finally {
			this.awaited.remove(id, outcome);
		}
	}

	private @Nullable Message awaitMessage(CompletableFuture<Message> outcome, long nanos, Object key,
			Callable<?> loader) {
		try {
			return outcome.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ValueRetrievalException(key, loader, ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A load outcome never completes exceptionally", ex);
		}
	}

	private Object received(Message message, Object key, String id, Callable<?> loader, long start) {
		switch (message.type()) {
			case CacheMessages.LOADED -> {
				Object value = decode(message.payload());
				if (value == null) {
					return loadAlone(key, loader);
				}
				waitEnded(start, WaitOutcome.VALUE);
				return value;
			}
			case CacheMessages.LOADED_NULL -> {
				waitEnded(start, WaitOutcome.VALUE);
				return NullValue.INSTANCE;
			}
			default -> {
				waitEnded(start, WaitOutcome.FAILURE);
				throw new ValueRetrievalException(key, loader, new CacheLoadFailedException("Cache '" + this.name
						+ "': the load of this entry failed in another instance: "
						+ new String(message.payload(), StandardCharsets.UTF_8)));
			}
		}
	}

	/** Holds the lease: loads, stores and tells every waiter, whatever the outcome. */
	private Object loadAsOwner(Object key, String id, Callable<?> loader, byte[] valueKey, byte[] leaseKey,
			byte[] token) {
		long start = System.nanoTime();
		Object loaded;
		try {
			loaded = loader.call();
		}
		catch (Throwable ex) {
			loaded(start, false);
			String description = ex.getClass().getName() + ((ex.getMessage() != null) ? ": " + ex.getMessage() : "");
			fill(valueKey, leaseKey, token, NONE, 0, CacheMessages.of(CacheMessages.FAILED, id,
					description.getBytes(StandardCharsets.UTF_8)));
			if (ex instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, ex);
		}
		loaded(start, true);
		Object stored = (loaded != null) ? loaded : (isAllowNullValues() ? NullValue.INSTANCE : null);
		if (stored == null) {
			fill(valueKey, leaseKey, token, NONE, 0, CacheMessages.of(CacheMessages.LOADED_NULL, id, NONE));
			return NullValue.INSTANCE;
		}
		byte[] bytes;
		try {
			bytes = encode(stored);
		}
		catch (RuntimeException ex) {
			fill(valueKey, leaseKey, token, NONE, 0, CacheMessages.of(CacheMessages.FAILED, id,
					("the value cannot be cached: " + ex.getMessage()).getBytes(StandardCharsets.UTF_8)));
			throw ex;
		}
		fill(valueKey, leaseKey, token, bytes, this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE),
				CacheMessages.of((stored == NullValue.INSTANCE) ? CacheMessages.LOADED_NULL : CacheMessages.LOADED, id,
						bytes));
		return stored;
	}

	private void fill(byte[] valueKey, byte[] leaseKey, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		try {
			this.parts.scripts().execute(FILL, ReturnType.INTEGER, 2, valueKey, leaseKey, token, bytes,
					number(ttlMillis), this.channel, message);
		}
		catch (RuntimeException ex) {
			outage(ex);
		}
	}

	/** Loads without a lease: Redis is down, the wait ran out, or the entry holds unreadable bytes. */
	private Object loadAlone(Object key, Callable<?> loader) {
		long start = System.nanoTime();
		try {
			Object value = loader.call();
			loaded(start, true);
			return (value != null) ? value : NullValue.INSTANCE;
		}
		catch (Throwable ex) {
			loaded(start, false);
			if (ex instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, ex);
		}
	}

	private Object loadAndPut(Object key, String id, Callable<?> loader) {
		Object value = loadAlone(key, loader);
		if (value != NullValue.INSTANCE || isAllowNullValues()) {
			write(id, value);
		}
		return value;
	}

	@Override
	public void put(Object key, @Nullable Object value) {
		write(keyString(key), toStoreValue(value));
	}

	private void write(String id, Object stored) {
		byte[] bytes = encode(stored);
		if (this.near != null) {
			this.near.invalidate(id);
		}
		try {
			this.parts.scripts().execute(PUT, ReturnType.INTEGER, 1, valueKey(id), bytes,
					number(this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE)), this.channel, written(id));
		}
		catch (RuntimeException ex) {
			outage(ex);
		}
	}

	@Override
	public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
		String id = keyString(key);
		Object stored = toStoreValue(value);
		byte[] bytes = encode(stored);
		if (this.near != null) {
			this.near.invalidate(id);
		}
		byte[] existing;
		try {
			existing = this.parts.scripts().execute(PUT_IF_ABSENT, ReturnType.VALUE, 1, valueKey(id), bytes,
					number(this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE)), this.channel, written(id));
		}
		catch (RuntimeException ex) {
			outage(ex);
			return null;
		}
		if (existing == null) {
			return null;
		}
		Object previous = decode(existing);
		return (previous != null) ? toValueWrapper(previous) : null;
	}

	@Override
	public void evict(Object key) {
		evictIfPresent(key);
	}

	@Override
	public boolean evictIfPresent(Object key) {
		String id = keyString(key);
		if (this.near != null) {
			this.near.invalidate(id);
		}
		try {
			Long deleted = this.parts.scripts().execute(EVICT, ReturnType.INTEGER, 1, valueKey(id), this.channel,
					written(id));
			return deleted != null && deleted > 0;
		}
		catch (RuntimeException ex) {
			outage(ex);
			return false;
		}
	}

	/**
	 * Deletes every entry of this cache on every master, with {@code SCAN} and {@code UNLINK} (never
	 * {@code KEYS}), and tells every near cache; an entry written meanwhile may survive.
	 */
	@Override
	public void clear() {
		if (this.near != null) {
			this.near.clear();
		}
		try {
			// Names hold no character that encoding changes, so every entry's key starts with this.
			CacheClearing.clear(this.parts.connectionFactory(),
					KeyPatterns.escape(this.parts.keyNaming().prefix() + CacheParts.AREA + ":{" + this.name + ":") + "*");
			this.parts.commands().execute("PUBLISH", ReturnType.INTEGER, this.channel,
					CacheMessages.of(CacheMessages.CLEARED, "", NONE));
		}
		catch (RuntimeException ex) {
			outage(ex);
		}
	}

	@Override
	public boolean invalidate() {
		clear();
		return false;
	}

	private void onMessage(byte[] bytes) {
		Message message;
		try {
			message = Message.read(bytes);
		}
		catch (RuntimeException ex) {
			logger.debug("Ignoring a malformed message on cache '" + this.name + "'s channel", ex);
			return;
		}
		if (this.near != null) {
			if (message.type() == CacheMessages.CLEARED) {
				this.near.clear();
			}
			else {
				this.near.invalidate(message.key());
			}
			this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
		}
		if (message.type() == CacheMessages.LOADED || message.type() == CacheMessages.LOADED_NULL
				|| message.type() == CacheMessages.FAILED) {
			CompletableFuture<Message> waiter = this.awaited.get(message.key());
			if (waiter != null) {
				waiter.complete(message);
			}
		}
	}

	private @Nullable Object nearGet(String id) {
		if (this.near == null) {
			return null;
		}
		long epoch = epoch();
		if (!nearCacheActive()) {
			return null;
		}
		return this.near.get(id, epoch);
	}

	private long epoch() {
		CacheSignals signals = this.parts.signals();
		return (signals != null) ? signals.epoch() : 0;
	}

	/** @return the value, {@link NullValue#INSTANCE} for a stored null, or {@code null} if it cannot be read */
	private @Nullable Object decode(byte[] raw) {
		if (java.util.Arrays.equals(raw, NULL_MARKER)) {
			return isAllowNullValues() ? NullValue.INSTANCE : null;
		}
		try {
			Object value = this.parts.values().deserialize(raw);
			if (value == null) {
				throw new SerializationException("The serializer read the bytes as null");
			}
			return value;
		}
		catch (RuntimeException ex) {
			this.parts.listeners().notify((l) -> l.onUndecodable(this.name, ex));
			logger.debug("Cache '" + this.name + "' holds an entry it cannot read; treated as a miss", ex);
			return null;
		}
	}

	private byte[] encode(Object stored) {
		if (stored == NullValue.INSTANCE) {
			return NULL_MARKER;
		}
		byte[] bytes = this.parts.values().serialize(stored);
		if (bytes == null) {
			throw new SerializationException("The serializer wrote a " + stored.getClass().getName() + " as null");
		}
		return bytes;
	}

	private void outage(RuntimeException failure) {
		if (!RedisFailures.isUnavailable(failure)) {
			throw failure;
		}
		this.outages.warn(failure);
		this.parts.listeners().notify((l) -> l.onOutage(this.name, failure));
	}

	private void miss() {
		this.parts.listeners().notify((l) -> l.onMiss(this.name));
	}

	private void loaded(long start, boolean success) {
		Duration time = Duration.ofNanos(System.nanoTime() - start);
		this.parts.listeners().notify((l) -> l.onLoad(this.name, time, success));
	}

	private void waitEnded(long start, WaitOutcome outcome) {
		Duration time = Duration.ofNanos(System.nanoTime() - start);
		this.parts.listeners().notify((l) -> l.onWait(this.name, time, outcome));
	}

	private byte[] written(String id) {
		return CacheMessages.of(CacheMessages.WRITTEN, id, NONE);
	}

	String channelName() {
		return new String(this.channel, StandardCharsets.UTF_8);
	}

	byte[] valueKey(String id) {
		return this.parts.keyNaming().key(CacheParts.AREA, this.name + ":" + id).getBytes(StandardCharsets.UTF_8);
	}

	private byte[] leaseKey(String id) {
		return this.parts.keyNaming().key(CacheParts.AREA, this.name + ":" + id, "load")
			.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The string a key is stored under.
	 * @param key a cache key
	 * @return its string form
	 * @throws IllegalArgumentException if the key's class has no string form of its own
	 */
	String keyString(Object key) {
		Objects.requireNonNull(key, "A cache key must not be null");
		if (key instanceof String string) {
			return string;
		}
		if (key instanceof Number || key instanceof Boolean || key instanceof Character || key instanceof Enum<?>
				|| key instanceof UUID || key instanceof TemporalAccessor || key instanceof SimpleKey) {
			return key.toString();
		}
		try {
			if (key.getClass().getMethod("toString").getDeclaringClass() != Object.class) {
				return key.toString();
			}
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException("Every class has toString", ex);
		}
		throw new IllegalArgumentException("Cache '" + this.name + "' cannot use a " + key.getClass().getName()
				+ " as a key: the class does not override toString(); use a key expression such as key = \"#id\","
				+ " or give the class a toString() that identifies the entry");
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}

package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.rediskit.cache.CacheListener.WaitOutcome;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.keys.KeyPatterns;
import io.rediskit.support.LuaScript;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.interceptor.CacheOperationInvoker;
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
 * <li><b>Single-flight</b> ({@link #get(Object, Callable)}, what {@code @Cacheable(sync = true)} calls, and under
 * {@link SingleFlight#EVERY_MISS} plain reads too, see there): of all the
 * callers missing one entry, in this instance and every other, one runs the loader under a lease of the load
 * timeout; the others wait (within an instance, behind one of them) and receive its value, or its failure
 * ({@link CacheLoadFailedException} in other instances), without calling the loader. Nothing is cached after a
 * failure, so the next miss loads again. A caller that waited the whole load timeout (the loader hangs, or its
 * instance died holding the lease) loads itself.</li>
 * <li><b>Async</b> ({@link #retrieve(Object, Supplier)}, what {@code @Cacheable(sync = true)} calls for a method
 * returning a {@code CompletableFuture} or a reactive type): the same single-flight without blocking a thread;
 * {@link #retrieve(Object)} reads without blocking.</li>
 * <li><b>Early refresh and stale-while-revalidate</b> (see {@link CacheSpec}): a read through the loader may start
 * a reload in the background, on the manager's executor, under the entry's load lease (one instance reloads);
 * its failure is logged and counted, never thrown to a caller.</li>
 * <li><b>Redis down</b>: a read that Redis cannot answer is a miss (the method runs), or, under
 * {@link OutagePolicy#SERVE_STALE}, the near cache's last copy; a load runs the loader without caching, a write
 * or eviction is skipped; one warning per interval per cache, never an exception. An eviction skipped this way
 * leaves the entry until its TTL ends.</li>
 * <li><b>Bloom filter</b> (when the spec names one): a key the filter has never seen is answered as a cached
 * {@code null} after one check of the filter, without reading the entry, taking a lease or calling the loader;
 * {@link #put} adds the key of each value it writes to the filter.</li>
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

	static final LuaScript READ = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/read.lua");

	static final LuaScript LEASE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/cache/lease.lua");

	/** How a stored null looks in Redis: not JSON, so no serializer's output starts with it by accident. */
	static final byte[] NULL_MARKER = { 0, 'n', 'u', 'l', 'l' };

	/** How often a waiter asks Redis itself, in case the message of the load it waits for is lost. */
	private static final long RECHECK_MILLIS = 200;

	private static final byte[] NONE = new byte[0];

	private final String name;

	private final CacheSpec spec;

	private final CacheParts parts;

	private final byte[] channel;

	private final String channelName;

	private final @Nullable NearCache near;

	private final ThrottledLog outages;

	private final ThrottledLog refreshFailures;

	/** The keys this instance is reloading in the background: one reload per key at a time. */
	private final java.util.Set<String> refreshing = ConcurrentHashMap.newKeySet();

	/** This instance's average load time of this cache, in ns (0 before the first load): XFetch's delta. */
	private volatile long averageLoadNanos;

	private volatile @Nullable BloomFilter filter;

	/** The callers of this instance loading or waiting for an entry: one per key talks to Redis. */
	private final ConcurrentHashMap<String, CompletableFuture<Object>> inFlight = new ConcurrentHashMap<>();

	/** The leases taken by plain reads that missed ({@link SingleFlight#EVERY_MISS}), by key, for their put. */
	private final ConcurrentHashMap<String, HeldLease> leases = new ConcurrentHashMap<>();

	/** The outcome of a load, by key, for the plain reads of this instance waiting for it. */
	private final ConcurrentHashMap<String, CompletableFuture<Message>> plainWaits = new ConcurrentHashMap<>();

	/** The values this instance loaded and stored, by key, until the fill's message comes back: kept, not dropped. */
	private final ConcurrentHashMap<String, OwnLoad> ownLoads = new ConcurrentHashMap<>();

	/** The outcome of another instance's load, by key, for the one caller of this instance waiting for it. */
	private final ConcurrentHashMap<String, CompletableFuture<Message>> awaited = new ConcurrentHashMap<>();

	RedisKitCache(String name, CacheSpec spec, CacheParts parts) {
		super(spec.cacheNullValues());
		this.name = name;
		this.spec = spec;
		this.parts = parts;
		this.channelName = parts.keyNaming().areaKey(CacheParts.AREA, "events:" + name);
		this.channel = this.channelName.getBytes(StandardCharsets.UTF_8);
		this.near = (spec.nearCache() != null)
				? new NearCache(spec.nearCache(), spec.outagePolicy() == OutagePolicy.SERVE_STALE) : null;
		this.outages = new ThrottledLog(logger, parts.outageLogInterval(), "Cache '" + name + "' cannot reach Redis; "
				+ ((spec.outagePolicy() == OutagePolicy.SERVE_STALE) ? "reads are answered from the near cache's copies"
						+ " or the loader" : "reads go to the loader")
				+ ", writes and evictions are skipped");
		this.refreshFailures = new ThrottledLog(logger, parts.outageLogInterval(),
				"Cache '" + name + "': a reload in the background failed; the entry keeps its value until it expires");
	}

	/**
	 * Subscribes the cache's channel, and routes the server's invalidations to its near cache where tracking runs;
	 * without them waiters poll and the near cache stays bypassed.
	 */
	void subscribe() {
		CacheSignals signals = this.parts.signals();
		if (signals == null) {
			return;
		}
		CacheTracking tracking = this.parts.tracking();
		// Before the subscription: trust can be lost as soon as it exists. Under SERVE_STALE the copies stay, for
		// outages only (an entry stored before the loss is never answered while Redis is up).
		if (this.near != null && !this.near.keepsStale()) {
			signals.onTrustLost(() -> clearNearOf(Invalidations.PUBSUB));
			if (tracking != null) {
				tracking.onTrustLost(() -> clearNearOf(Invalidations.TRACKING));
			}
		}
		if (this.near != null && tracking != null
				&& this.spec.nearCache().invalidation() != NearCacheInvalidation.PUBSUB) {
			tracking.watch(this.name, this::onTracked);
		}
		try {
			signals.watch(channelName(), this::onMessage);
		}
		catch (RuntimeException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			this.outages.warn(ex, "its channel is not subscribed yet (tried again every heartbeat): waiters poll and"
					+ " the near cache is bypassed");
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
		return switch (invalidations()) {
			case TRACKING -> this.parts.tracking().trusted();
			case PUBSUB -> this.parts.signals().watching(this.channelName) && this.parts.signals().trusted();
			case NONE -> false;
		};
	}

	/**
	 * @return how the near cache learns of changes now: {@code tracking} (server-assisted, the server's
	 * invalidations), {@code pubsub} (the caches' own messages), or {@code none} (no near cache, or the mode is not
	 * decided yet: Redis was not reached so far, or tracking was asked for and the server does not offer it)
	 */
	public String nearCacheInvalidation() {
		return invalidations().name().toLowerCase(java.util.Locale.ROOT);
	}

	/**
	 * Where the near cache's invalidations come from; a cache keeps the answer once the tracking connection was
	 * first made (tracking available or not), so an epoch is never compared across the two.
	 */
	private Invalidations invalidations() {
		if (this.near == null || this.parts.signals() == null) {
			return Invalidations.NONE;
		}
		NearCacheInvalidation mode = this.spec.nearCache().invalidation();
		if (mode == NearCacheInvalidation.PUBSUB) {
			return Invalidations.PUBSUB;
		}
		CacheTracking.Availability availability = (this.parts.tracking() != null)
				? this.parts.tracking().availability() : CacheTracking.Availability.UNAVAILABLE;
		if (availability == CacheTracking.Availability.AVAILABLE) {
			return Invalidations.TRACKING;
		}
		return (availability == CacheTracking.Availability.UNAVAILABLE && mode == NearCacheInvalidation.AUTO)
				? Invalidations.PUBSUB : Invalidations.NONE;
	}

	private enum Invalidations {

		NONE, PUBSUB, TRACKING

	}

	private void clearNearOf(Invalidations source) {
		if (invalidations() == source) {
			this.near.clear();
		}
	}

	/** An invalidation the server sent on the tracking connection: {@code null} for every entry (a flush). */
	private void onTracked(@Nullable String id) {
		if (this.near == null || invalidations() != Invalidations.TRACKING) {
			return;
		}
		if (id == null) {
			this.near.clear();
		}
		else {
			this.near.invalidate(id);
		}
		this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
	}

	/** A stored null is a null value whether or not this cache stores nulls (the Bloom filter answers one). */
	@Override
	protected @Nullable Object fromStoreValue(@Nullable Object storeValue) {
		return (storeValue == NullValue.INSTANCE) ? null : storeValue;
	}

	@Override
	protected @Nullable Object lookup(Object key) {
		String id = keyString(key);
		NearCache.Entry cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			return cached.value();
		}
		if (!mightExist(id)) {
			return NullValue.INSTANCE;
		}
		if (this.spec.singleFlight() == SingleFlight.EVERY_MISS) {
			return lookupOnce(id);
		}
		long epoch = epoch();
		long stamp = (this.near != null) ? this.near.stamp() : 0;
		boolean keep = nearCacheActive();
		byte[] raw;
		long pttl = -1;
		try {
			if (refreshes()) {
				List<Object> reply = this.parts.scripts().execute(READ, ReturnType.MULTI, 1, valueKey(id));
				raw = reply.isEmpty() ? null : (byte[]) reply.get(0);
				pttl = reply.isEmpty() ? -1 : (Long) reply.get(1);
			}
			else {
				raw = this.parts.commands().execute("GET", ReturnType.VALUE, valueKey(id));
			}
		}
		catch (RuntimeException ex) {
			outage(ex);
			Object stale = staleCopy(id);
			if (stale != null) {
				return stale;
			}
			miss();
			return null;
		}
		Object value = (raw != null) ? decode(raw) : null;
		long left = leftMillis(pttl);
		// Without the loader an entry past its TTL cannot be revalidated: it is a miss, and the method reloads it.
		if (value == null || left <= 0) {
			miss();
			return null;
		}
		if (keep) {
			this.near.put(id, value, stamp, epoch, expiresAt(left));
		}
		this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
		return value;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
		Objects.requireNonNull(valueLoader, "valueLoader must not be null");
		String id = keyString(key);
		NearCache.Entry cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			refreshEarly(key, id, valueLoader, cached.leftMillis());
			return (T) unwrap(cached.value());
		}
		if (!mightExist(id)) {
			return null;
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

	/**
	 * Reads an entry without blocking.
	 * @return a future of the value, of a {@link ValueWrapper} of {@code null} for a cached null (or a key the
	 * Bloom filter has never seen), or of {@code null} for a miss; never failing for an outage
	 */
	@Override
	public CompletableFuture<?> retrieve(Object key) {
		String id = keyString(key);
		NearCache.Entry cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			return CompletableFuture.completedFuture(toValueWrapper(cached.value()));
		}
		return mightExistAsync(id).thenCompose((might) -> {
			if (!might) {
				return CompletableFuture.completedFuture(toValueWrapper(NullValue.INSTANCE));
			}
			long epoch = epoch();
			long stamp = (this.near != null) ? this.near.stamp() : 0;
			boolean keep = nearCacheActive();
			CompletionStage<List<Object>> read = this.parts.scripts().executeAsync(READ, ReturnType.MULTI, 1,
					valueKey(id));
			return read.toCompletableFuture().handle((reply, ex) -> {
				if (ex != null) {
					outage(asRuntime(Stages.unwrap(ex)));
					Object stale = staleCopy(id);
					if (stale == null) {
						miss();
					}
					return (stale != null) ? toValueWrapper(stale) : null;
				}
				Object value = reply.isEmpty() ? null : decode((byte[]) reply.get(0));
				long left = reply.isEmpty() ? 0 : leftMillis((Long) reply.get(1));
				if (value == null || left <= 0) {
					miss();
					return null;
				}
				if (keep) {
					this.near.put(id, value, stamp, epoch, expiresAt(left));
				}
				this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
				return toValueWrapper(value);
			});
		});
	}

	/**
	 * {@link #get(Object, Callable)} without blocking a thread: of all the callers missing an entry, in every
	 * instance, one calls the loader; the others receive its value, or its failure. The loader's future is
	 * awaited without a thread; waits for another instance are timed on the JDK's delayer. A reload in the
	 * background (early refresh, stale-while-revalidate) waits for the loader's future on the manager's executor.
	 * @return a future of the value ({@code null} for a null result or a key the Bloom filter has never seen)
	 */
	@Override
	@SuppressWarnings("unchecked")
	public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
		Objects.requireNonNull(valueLoader, "valueLoader must not be null");
		String id = keyString(key);
		Callable<T> inBackground = () -> Stages.join(valueLoader.get());
		NearCache.Entry cached = nearGet(id);
		if (cached != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.NEAR));
			refreshEarly(key, id, inBackground, cached.leftMillis());
			return CompletableFuture.completedFuture((T) unwrap(cached.value()));
		}
		return mightExistAsync(id).thenCompose((might) -> {
			if (!might) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<Object> mine = new CompletableFuture<>();
			CompletableFuture<Object> ahead = this.inFlight.putIfAbsent(id, mine);
			if (ahead != null) {
				return ahead.thenApply((value) -> (T) unwrap(value));
			}
			Attempt attempt = new Attempt(key, id, valueLoader, inBackground);
			this.awaited.put(id, attempt.outcome);
			attempt.claim().whenComplete((value, ex) -> {
				this.awaited.remove(id, attempt.outcome);
				this.inFlight.remove(id, mine);
				if (ex != null) {
					mine.completeExceptionally(Stages.unwrap(ex));
				}
				else {
					mine.complete(value);
				}
			});
			return mine.thenApply((value) -> (T) unwrap(value));
		});
	}

	/**
	 * One caller's asynchronous way through an entry, the steps of {@link #participate} as stages: claim, then
	 * take the value, load as the lease holder, or wait for another instance's outcome and claim again.
	 */
	private final class Attempt {

		private final Object key;

		private final String id;

		private final Supplier<? extends CompletableFuture<?>> loader;

		private final Callable<?> inBackground;

		private final byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);

		private final long start = System.nanoTime();

		private final long deadline = this.start + RedisKitCache.this.spec.loadTimeout().toNanos();

		private final CompletableFuture<Message> outcome = new CompletableFuture<>();

		private boolean waited;

		/** The token of the load this caller waits for, empty before it was told of one. */
		private byte[] holder = NONE;

		Attempt(Object key, String id, Supplier<? extends CompletableFuture<?>> loader, Callable<?> inBackground) {
			this.key = key;
			this.id = id;
			this.loader = loader;
			this.inBackground = inBackground;
		}

		CompletableFuture<Object> claim() {
			long epoch = epoch();
			long stamp = (RedisKitCache.this.near != null) ? RedisKitCache.this.near.stamp() : 0;
			boolean keep = nearCacheActive();
			CompletionStage<List<Object>> reply = RedisKitCache.this.parts.scripts().executeAsync(CLAIM,
					ReturnType.MULTI, 3, valueKey(this.id), leaseKey(this.id), outcomeKey(this.id), this.token,
					number(RedisKitCache.this.spec.loadTimeout().toMillis()), this.holder);
			return reply.toCompletableFuture().handle((claimed, ex) -> {
				if (ex != null) {
					outage(asRuntime(Stages.unwrap(ex)));
					Object stale = staleCopy(this.id);
					return (stale != null) ? CompletableFuture.completedFuture(stale) : loadAlone();
				}
				return claimed(claimed, keep, stamp, epoch);
			}).thenCompose((next) -> next);
		}

		private CompletableFuture<Object> claimed(List<Object> reply, boolean keep, long stamp, long epoch) {
			long code = (Long) reply.get(0);
			if (code == 1) {
				Object value = decode((byte[]) reply.get(1));
				if (value == null) {
					// Unreadable bytes hold the entry: a miss; load and overwrite them, without waiting for the write.
					if (!this.waited) {
						miss();
					}
					return loadAlone().thenApply((loaded) -> {
						if (loaded != NullValue.INSTANCE || isAllowNullValues()) {
							writeAsync(this.id, loaded);
						}
						return loaded;
					});
				}
				found(this.key, this.id, this.inBackground, value, (Long) reply.get(2), keep, stamp, epoch);
				if (this.waited) {
					waitEnded(this.start, WaitOutcome.VALUE);
				}
				return CompletableFuture.completedFuture(value);
			}
			if (code == 3) {
				// The load waited for ended, storing nothing, and its message has not come (yet).
				return received(Message.read((byte[]) reply.get(1)));
			}
			if (!this.waited) {
				miss();
			}
			if (code == 2) {
				return loadAsOwner();
			}
			this.waited = true;
			this.holder = (byte[]) reply.get(1);
			long left = this.deadline - System.nanoTime();
			if (left <= 0) {
				waitEnded(this.start, WaitOutcome.TIMEOUT);
				return loadAlone();
			}
			// A copy, so that the timeout of this wait does not complete the outcome itself.
			return this.outcome.copy()
				.completeOnTimeout(null, Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)),
						TimeUnit.NANOSECONDS)
				.thenCompose((message) -> (message != null) ? received(message) : claim());
		}

		private CompletableFuture<Object> received(Message message) {
			switch (message.type()) {
				case CacheMessages.LOADED -> {
					Object value = decode(message.payload());
					if (value == null) {
						return loadAlone();
					}
					waitEnded(this.start, WaitOutcome.VALUE);
					return CompletableFuture.completedFuture(value);
				}
				case CacheMessages.LOADED_NULL -> {
					waitEnded(this.start, WaitOutcome.VALUE);
					return CompletableFuture.completedFuture(NullValue.INSTANCE);
				}
				default -> {
					waitEnded(this.start, WaitOutcome.FAILURE);
					return CompletableFuture.failedFuture(new CacheLoadFailedException("Cache '" + RedisKitCache.this.name
							+ "': the load of this entry failed in another instance: "
							+ new String(message.payload(), StandardCharsets.UTF_8)));
				}
			}
		}

		/** Loads as the lease holder; the outcome is stored and told to every waiter before the future ends. */
		private CompletableFuture<Object> loadAsOwner() {
			long began = System.nanoTime();
			return callLoader().handle((loaded, ex) -> {
				if (ex != null) {
					Throwable failure = Stages.unwrap(ex);
					loaded(began, false);
					return fillAsync(this.id, this.token, NONE, 0, CacheMessages.of(CacheMessages.FAILED,
							this.id, describe(failure).getBytes(StandardCharsets.UTF_8)))
						.thenCompose((ignored) -> CompletableFuture.<Object>failedFuture(failure));
				}
				loaded(began, true);
				Object stored = (loaded != null) ? loaded : NullValue.INSTANCE;
				if (stored == NullValue.INSTANCE && !isAllowNullValues()) {
					return fillAsync(this.id, this.token, NONE, 0,
							CacheMessages.of(CacheMessages.LOADED_NULL, this.id, NONE))
						.thenApply((ignored) -> stored);
				}
				byte[] bytes;
				try {
					bytes = encode(stored);
				}
				catch (RuntimeException encoding) {
					return fillAsync(this.id, this.token, NONE, 0, CacheMessages.of(CacheMessages.FAILED,
							this.id, ("the value cannot be cached: " + encoding.getMessage())
								.getBytes(StandardCharsets.UTF_8)))
						.thenCompose((ignored) -> CompletableFuture.<Object>failedFuture(encoding));
				}
				return storeAsync(this.id, this.token, stored, bytes).thenApply((ignored) -> stored);
			}).thenCompose((next) -> next);
		}

		/** Loads without a lease: Redis is down, the wait ran out, or the entry holds unreadable bytes. */
		private CompletableFuture<Object> loadAlone() {
			long began = System.nanoTime();
			return callLoader().handle((loaded, ex) -> {
				loaded(began, ex == null);
				if (ex != null) {
					throw asRuntime(Stages.unwrap(ex));
				}
				return (loaded != null) ? loaded : NullValue.INSTANCE;
			});
		}

		private CompletableFuture<?> callLoader() {
			try {
				CompletableFuture<?> future = this.loader.get();
				return (future != null) ? future : CompletableFuture.failedFuture(new IllegalStateException("Cache '"
						+ RedisKitCache.this.name + "': the loader returned no future"));
			}
			catch (RuntimeException | Error ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

	}

	/** @return a future of whether Redis ran the fill (not, in an outage) */
	private CompletableFuture<Boolean> fillAsync(String id, byte[] token, byte[] bytes, long ttlMillis,
			byte[] message) {
		return this.parts.scripts()
			.executeAsync(FILL, ReturnType.INTEGER, 3, valueKey(id), leaseKey(id), outcomeKey(id), token, bytes,
					number(ttlMillis), this.channel, message, number(this.spec.loadTimeout().toMillis()))
			.toCompletableFuture()
			.handle((ignored, ex) -> {
				if (ex != null) {
					outage(asRuntime(Stages.unwrap(ex)));
					return false;
				}
				return true;
			});
	}

	/** {@link #store} without blocking. */
	private CompletableFuture<Boolean> storeAsync(String id, byte[] token, Object stored, byte[] bytes) {
		long ttlMillis = this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE);
		OwnLoad own = ownLoad(id, stored, bytes, ttlMillis);
		return fillAsync(id, token, bytes, ttlMillis, loadedMessage(id, stored, bytes)).thenApply((filled) -> {
			ownLoadStored(id, own, filled);
			return filled;
		});
	}

	private void writeAsync(String id, Object stored) {
		byte[] bytes;
		try {
			bytes = encode(stored);
		}
		catch (RuntimeException ex) {
			logger.debug("Cache '" + this.name + "' cannot store a loaded value", ex);
			return;
		}
		if (this.near != null) {
			this.near.invalidate(id);
		}
		this.parts.scripts()
			.executeAsync(PUT, ReturnType.INTEGER, 1, valueKey(id), bytes,
					number(this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE)), this.channel, written(id))
			.exceptionally((ex) -> {
				Throwable failure = Stages.unwrap(ex);
				if (RedisFailures.isUnavailable(failure)) {
					outage(asRuntime(failure));
				}
				else {
					logger.warn("Cache '" + this.name + "' could not store a loaded value", failure);
				}
				return null;
			});
	}

	/**
	 * Names a loader's failure for the waiters of other instances: the exception the method threw, not Spring's
	 * {@link CacheOperationInvoker.ThrowableWrapper} around it (what the loader of {@code @Cacheable(sync = true)}
	 * throws).
	 */
	private static String describe(Throwable failure) {
		Throwable thrown = failure;
		while (thrown instanceof CacheOperationInvoker.ThrowableWrapper wrapper) {
			thrown = wrapper.getOriginal();
		}
		return thrown.getClass().getName() + ((thrown.getMessage() != null) ? ": " + thrown.getMessage() : "");
	}

	private static RuntimeException asRuntime(Throwable failure) {
		if (failure instanceof RuntimeException runtime) {
			return runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new java.util.concurrent.CompletionException(failure);
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
			Throwable cause = Stages.unwrap(ex.getCause());
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, cause);
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
			byte[] outcomeKey = outcomeKey(id);
			byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
			byte[] lease = number(this.spec.loadTimeout().toMillis());
			long start = System.nanoTime();
			long deadline = start + this.spec.loadTimeout().toNanos();
			boolean waited = false;
			byte[] holder = NONE;
			while (true) {
				long epoch = epoch();
				long stamp = (this.near != null) ? this.near.stamp() : 0;
				boolean keep = nearCacheActive();
				List<Object> reply;
				try {
					reply = this.parts.scripts().execute(CLAIM, ReturnType.MULTI, 3, valueKey, leaseKey, outcomeKey,
							token, lease, holder);
				}
				catch (RuntimeException ex) {
					outage(ex);
					Object stale = staleCopy(id);
					return (stale != null) ? stale : loadAlone(key, loader);
				}
				long code = (Long) reply.get(0);
				if (code == 1) {
					Object value = decode((byte[]) reply.get(1));
					if (value == null) {
						// Unreadable bytes hold the entry: a miss; load and overwrite them rather than wait for their TTL.
						if (!waited) {
							miss();
						}
						return loadAndPut(key, id, loader);
					}
					found(key, id, loader, value, (Long) reply.get(2), keep, stamp, epoch);
					if (waited) {
						waitEnded(start, WaitOutcome.VALUE);
					}
					return value;
				}
				if (code == 3) {
					// The load waited for ended, storing nothing, and its message has not come (yet).
					return received(Message.read((byte[]) reply.get(1)), key, id, loader, start);
				}
				if (code == 2) {
					if (!waited) {
						miss();
					}
					return loadAsOwner(key, id, loader, token);
				}
				if (!waited) {
					miss();
					waited = true;
				}
				holder = (byte[]) reply.get(1);
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
	private Object loadAsOwner(Object key, String id, Callable<?> loader, byte[] token) {
		long start = System.nanoTime();
		Object loaded;
		try {
			loaded = loader.call();
		}
		catch (Throwable ex) {
			loaded(start, false);
			fill(id, token, NONE, 0, CacheMessages.of(CacheMessages.FAILED, id,
					describe(ex).getBytes(StandardCharsets.UTF_8)));
			if (ex instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, ex);
		}
		loaded(start, true);
		Object stored = (loaded != null) ? loaded : (isAllowNullValues() ? NullValue.INSTANCE : null);
		if (stored == null) {
			fill(id, token, NONE, 0, CacheMessages.of(CacheMessages.LOADED_NULL, id, NONE));
			return NullValue.INSTANCE;
		}
		byte[] bytes;
		try {
			bytes = encode(stored);
		}
		catch (RuntimeException ex) {
			fill(id, token, NONE, 0, CacheMessages.of(CacheMessages.FAILED, id,
					("the value cannot be cached: " + ex.getMessage()).getBytes(StandardCharsets.UTF_8)));
			throw ex;
		}
		store(id, token, stored, bytes);
		return stored;
	}

	/** @return whether Redis ran the fill (not, in an outage) */
	private boolean fill(String id, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		try {
			this.parts.scripts().execute(FILL, ReturnType.INTEGER, 3, valueKey(id), leaseKey(id), outcomeKey(id), token,
					bytes, number(ttlMillis), this.channel, message, number(this.spec.loadTimeout().toMillis()));
			return true;
		}
		catch (RuntimeException ex) {
			outage(ex);
			return false;
		}
	}

	/**
	 * Ends a load that stores its value: the fill, and the value in this instance's near cache, where the fill's
	 * own message keeps it rather than drops it.
	 */
	private void store(String id, byte[] token, Object stored, byte[] bytes) {
		long ttlMillis = this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE);
		OwnLoad own = ownLoad(id, stored, bytes, ttlMillis);
		ownLoadStored(id, own, fill(id, token, bytes, ttlMillis, loadedMessage(id, stored, bytes)));
	}

	private static byte[] loadedMessage(String id, Object stored, byte[] bytes) {
		return CacheMessages.of((stored == NullValue.INSTANCE) ? CacheMessages.LOADED_NULL : CacheMessages.LOADED, id,
				bytes);
	}

	/**
	 * Before the fill of a value this instance loaded: remembers it, so that the fill's own message, which tells
	 * every instance to drop its copy, keeps this instance's instead.
	 * @return the load to keep, or {@code null} without a near cache, while it is bypassed, or under tracking,
	 * whose invalidation of the fill's own write cannot be told from that of another write right after it (the
	 * server sends one for both when they fall in one round of its event loop)
	 */
	private @Nullable OwnLoad ownLoad(String id, Object stored, byte[] bytes, long ttlMillis) {
		if (this.near == null || invalidations() != Invalidations.PUBSUB) {
			return null;
		}
		long epoch = epoch();
		long stamp = this.near.stamp();
		if (!nearCacheActive()) {
			return null;
		}
		// Before the fill is sent: the entry is taken to expire no later than it does in Redis.
		OwnLoad own = new OwnLoad(bytes, stored, epoch, stamp, expiresAt(leftMillis(ttlMillis)));
		if (this.ownLoads.size() >= 1024) {
			// Their messages were lost (a subscription down): the copies they would keep are not needed.
			this.ownLoads.clear();
		}
		this.ownLoads.put(id, own);
		return own;
	}

	/**
	 * After the fill: keeps the value in the near cache unless an invalidation came since the load was
	 * remembered (the fill's own message included: it stored the value itself), or forgets it if the fill did
	 * not run.
	 */
	private void ownLoadStored(String id, @Nullable OwnLoad own, boolean filled) {
		if (own == null) {
			return;
		}
		if (!filled) {
			this.ownLoads.remove(id, own);
			return;
		}
		this.near.put(id, own.value(), own.stamp(), own.epoch(), own.expiresAtNanos());
	}

	/**
	 * A value this instance loaded and stored, kept in its near cache when the fill's message comes back.
	 * @param bytes the stored bytes, which the message carries
	 * @param value the value
	 * @param epoch the subscription's epoch before the fill
	 * @param stamp the near cache's invalidation count before the fill
	 * @param expiresAtNanos no later than the entry's expiry in Redis
	 */
	private record OwnLoad(byte[] bytes, Object value, long epoch, long stamp, long expiresAtNanos) {
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

	/**
	 * A plain read under {@link SingleFlight#EVERY_MISS}: the entry, or the load lease (a miss: the caller runs
	 * the method and puts its result, which ends the lease), or a wait for the lease holder's value. A wait that
	 * runs out, or a load that failed elsewhere, is a miss.
	 */
	private @Nullable Object lookupOnce(String id) {
		byte[] valueKey = valueKey(id);
		byte[] leaseKey = leaseKey(id);
		byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
		long start = System.nanoTime();
		// A lease whose method threw runs out without a put: then a waiter takes the next lease and runs the method,
		// so a waiter waits up to two load timeouts before it misses (and runs the method) itself.
		long deadline = start + 2 * this.spec.loadTimeout().toNanos();
		boolean waited = false;
		while (true) {
			long epoch = epoch();
			long stamp = (this.near != null) ? this.near.stamp() : 0;
			boolean keep = nearCacheActive();
			List<Object> reply;
			try {
				// A plain read that waited misses whatever ended the load it waited for: it asks for no outcome.
				reply = this.parts.scripts().execute(CLAIM, ReturnType.MULTI, 3, valueKey, leaseKey, outcomeKey(id), token,
						number(this.spec.loadTimeout().toMillis()), NONE);
			}
			catch (RuntimeException ex) {
				outage(ex);
				Object stale = staleCopy(id);
				if (stale == null) {
					miss();
				}
				return stale;
			}
			long code = (Long) reply.get(0);
			if (code == 1) {
				Object value = decode((byte[]) reply.get(1));
				long left = leftMillis((Long) reply.get(2));
				if (value == null || left <= 0) {
					miss();
					return null;
				}
				if (keep) {
					this.near.put(id, value, stamp, epoch, expiresAt(left));
				}
				this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
				if (waited) {
					waitEnded(start, WaitOutcome.VALUE);
				}
				return value;
			}
			if (!waited) {
				miss();
			}
			if (code == 2) {
				holdLease(id, token);
				return null;
			}
			waited = true;
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				waitEnded(start, WaitOutcome.TIMEOUT);
				return null;
			}
			// Shared by the waiters of this instance; a message that came before it is made up for by the recheck.
			CompletableFuture<Message> outcome = this.plainWaits.computeIfAbsent(id, (key) -> new CompletableFuture<>());
			Message message;
			try {
				message = outcome.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)),
						TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				continue;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return null;
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("A load outcome never completes exceptionally", ex);
			}
			if (message.type() == CacheMessages.LOADED_NULL) {
				waitEnded(start, WaitOutcome.VALUE);
				return isAllowNullValues() ? NullValue.INSTANCE : null;
			}
			Object value = (message.type() == CacheMessages.LOADED) ? decode(message.payload()) : null;
			waitEnded(start, (value != null) ? WaitOutcome.VALUE : WaitOutcome.FAILURE);
			return value;
		}
	}

	/**
	 * Remembers the lease a plain read took, for the {@code put} that ends it. Leases whose method never put
	 * (it threw) are dropped once they ran out, when the map grows.
	 */
	private void holdLease(String id, byte[] token) {
		long now = System.nanoTime();
		if (this.leases.size() >= 1024) {
			this.leases.values().removeIf((lease) -> now - lease.expiresAtNanos() > 0);
		}
		this.leases.put(id, new HeldLease(token, now + this.spec.loadTimeout().toNanos()));
	}

	/** A load lease a plain read of this instance holds. */
	private record HeldLease(byte[] token, long expiresAtNanos) {
	}

	/**
	 * A read through the loader found the entry: keeps it in the near cache while it is fresh, and starts a
	 * reload in the background when it is past its TTL (stale-while-revalidate) or, by chance, close to it (early
	 * refresh).
	 */
	private void found(Object key, String id, Callable<?> loader, Object value, long pttl, boolean keep, long stamp,
			long epoch) {
		long left = leftMillis(pttl);
		if (left <= 0) {
			refreshInBackground(key, id, loader, true, pttl);
		}
		else {
			if (keep) {
				this.near.put(id, value, stamp, epoch, expiresAt(left));
			}
			refreshEarly(key, id, loader, left);
		}
		this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.REDIS));
	}

	/**
	 * XFetch: reloads with probability {@code exp(-left / (beta * delta))}, so that under load one read reloads
	 * shortly before the expiry, and a read far from it almost never does.
	 */
	private void refreshEarly(Object key, String id, Callable<?> loader, long leftMillis) {
		double beta = this.spec.earlyRefresh();
		if (beta <= 0 || leftMillis == Long.MAX_VALUE) {
			return;
		}
		double deltaMillis = Math.max(1, this.averageLoadNanos / 1e6);
		if (-deltaMillis * beta * Math.log(ThreadLocalRandom.current().nextDouble()) >= leftMillis) {
			refreshInBackground(key, id, loader, false, leftMillis + this.spec.staleWhileRevalidate().toMillis());
		}
	}

	/**
	 * Reloads an entry on the manager's executor, if this instance is not reloading it already.
	 * @param pttl the entry's PTTL when the reload was decided: a reload starting after the entry was rewritten
	 * (its PTTL is longer) is not needed
	 */
	private void refreshInBackground(Object key, String id, Callable<?> loader, boolean expired, long pttl) {
		if (!this.refreshing.add(id)) {
			return;
		}
		try {
			this.parts.refresher().execute(() -> {
				try {
					refresh(key, id, loader, expired, pttl);
				}
				finally {
					this.refreshing.remove(id);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			this.refreshing.remove(id);
			this.refreshFailures.warn(ex);
		}
	}

	/**
	 * Takes the entry's load lease unless another instance holds it (then that one reloads) or the entry was
	 * rewritten since the decision; loads and stores.
	 */
	private void refresh(Object key, String id, Callable<?> loader, boolean expired, long pttl) {
		byte[] valueKey = valueKey(id);
		byte[] leaseKey = leaseKey(id);
		byte[] token = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
		try {
			Long taken = this.parts.scripts().execute(LEASE, ReturnType.INTEGER, 2, valueKey, leaseKey, token,
					number(this.spec.loadTimeout().toMillis()), number(pttl));
			if (taken == null || taken != 1) {
				return;
			}
			this.parts.listeners().notify((l) -> l.onRefresh(this.name, expired));
			loadAsOwner(key, id, loader, token);
		}
		catch (RuntimeException ex) {
			// Nobody asked for this read: whatever went wrong is logged and counted, never thrown.
			if (RedisFailures.isUnavailable(ex)) {
				this.parts.listeners().notify((l) -> l.onOutage(this.name, ex));
			}
			this.refreshFailures.warn(ex);
		}
	}

	/** @return the ms an entry with this PTTL has before its TTL ends ({@code Long.MAX_VALUE} if unknown) */
	private long leftMillis(long pttl) {
		if (pttl < 0) {
			return Long.MAX_VALUE;
		}
		return pttl - this.spec.staleWhileRevalidate().toMillis();
	}

	private static long expiresAt(long leftMillis) {
		return (leftMillis == Long.MAX_VALUE) ? NearCache.UNKNOWN_EXPIRY
				: System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leftMillis);
	}

	private boolean refreshes() {
		return this.spec.earlyRefresh() > 0 || !this.spec.staleWhileRevalidate().isZero();
	}

	/** @return the near cache's last copy, under {@link OutagePolicy#SERVE_STALE}, for a read Redis cannot answer */
	private @Nullable Object staleCopy(String id) {
		if (this.near == null || !this.near.keepsStale()) {
			return null;
		}
		Object stale = this.near.stale(id);
		if (stale != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.STALE));
		}
		return stale;
	}

	/** @return whether the key may exist: no filter, the filter has seen it, or the filter cannot answer */
	private boolean mightExist(String id) {
		BloomFilter bloom = bloomFilter();
		if (bloom == null) {
			return true;
		}
		try {
			if (bloom.mightContain(id)) {
				return true;
			}
		}
		catch (RuntimeException ex) {
			outage(ex);
			return true;
		}
		this.parts.listeners().notify((l) -> l.onFiltered(this.name));
		return false;
	}

	private CompletableFuture<Boolean> mightExistAsync(String id) {
		BloomFilter bloom = bloomFilter();
		if (bloom == null) {
			return CompletableFuture.completedFuture(true);
		}
		return bloom.mightContainAsync(id).toCompletableFuture().handle((found, ex) -> {
			if (ex != null) {
				outage(asRuntime(Stages.unwrap(ex)));
				return true;
			}
			if (!found) {
				this.parts.listeners().notify((l) -> l.onFiltered(this.name));
			}
			return found;
		});
	}

	private @Nullable BloomFilter bloomFilter() {
		String filterName = this.spec.bloomFilter();
		if (filterName == null) {
			return null;
		}
		BloomFilter resolved = this.filter;
		if (resolved == null) {
			resolved = this.parts.bloomFilters().apply(filterName);
			this.filter = resolved;
		}
		return resolved;
	}

	/** A written value exists: its key joins the filter, or the filter would hide it. */
	private void register(String id, Object stored) {
		BloomFilter bloom = bloomFilter();
		if (bloom == null || stored == NullValue.INSTANCE) {
			return;
		}
		try {
			bloom.add(id);
		}
		catch (RuntimeException ex) {
			outage(ex);
		}
	}

	@Override
	public void put(Object key, @Nullable Object value) {
		String id = keyString(key);
		Object stored = toStoreValue(value);
		HeldLease lease = this.leases.remove(id);
		if (lease != null && System.nanoTime() - lease.expiresAtNanos() < 0) {
			// The put after a plain read's miss: store, end the lease and hand the value to the waiters in one step.
			byte[] bytes;
			try {
				bytes = encode(stored);
			}
			catch (RuntimeException ex) {
				fill(id, lease.token(), NONE, 0, CacheMessages.of(CacheMessages.FAILED, id,
						("the value cannot be cached: " + ex.getMessage()).getBytes(StandardCharsets.UTF_8)));
				throw ex;
			}
			if (this.near != null) {
				this.near.invalidate(id);
			}
			store(id, lease.token(), stored, bytes);
		}
		else {
			write(id, stored);
		}
		register(id, stored);
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
			register(id, stored);
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
		// Under tracking the server's invalidations drop the copies, this instance's own writes' included.
		if (this.near != null && invalidations() != Invalidations.TRACKING) {
			if (message.type() == CacheMessages.CLEARED) {
				this.near.clear();
				this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
			}
			else if (!keepOwnLoad(message)) {
				this.near.invalidate(message.key());
				this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
			}
		}
		if (message.type() == CacheMessages.LOADED || message.type() == CacheMessages.LOADED_NULL
				|| message.type() == CacheMessages.FAILED) {
			CompletableFuture<Message> waiter = this.awaited.get(message.key());
			if (waiter != null) {
				waiter.complete(message);
			}
			CompletableFuture<Message> plain = this.plainWaits.remove(message.key());
			if (plain != null) {
				plain.complete(message);
			}
		}
	}

	/**
	 * The message of this instance's own load: when Redis sent it, the entry held the very bytes this instance
	 * loaded, so its copy is current; it is stored again after the invalidation, so that no read's reply older than
	 * the message is kept.
	 * @return whether the message was of an own load and so handled
	 */
	private boolean keepOwnLoad(Message message) {
		if (message.type() != CacheMessages.LOADED && message.type() != CacheMessages.LOADED_NULL) {
			return false;
		}
		OwnLoad own = this.ownLoads.get(message.key());
		if (own == null || !java.util.Arrays.equals(own.bytes(), message.payload())
				|| !this.ownLoads.remove(message.key(), own)) {
			return false;
		}
		this.near.invalidate(message.key());
		this.near.put(message.key(), own.value(), this.near.stamp(), own.epoch(), own.expiresAtNanos());
		return true;
	}

	private NearCache.@Nullable Entry nearGet(String id) {
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
		return switch (invalidations()) {
			case TRACKING -> this.parts.tracking().epoch();
			case PUBSUB -> this.parts.signals().epoch();
			case NONE -> 0;
		};
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
		long nanos = System.nanoTime() - start;
		long average = this.averageLoadNanos;
		// A moving average over about the last eight loads; racing updates lose one sample, which is fine here.
		this.averageLoadNanos = (average == 0) ? nanos : average + (nanos - average) / 8;
		Duration time = Duration.ofNanos(nanos);
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
		return this.channelName;
	}

	byte[] valueKey(String id) {
		return this.parts.keyNaming().key(CacheParts.AREA, this.name + ":" + id).getBytes(StandardCharsets.UTF_8);
	}

	private byte[] leaseKey(String id) {
		return this.parts.keyNaming().key(CacheParts.AREA, this.name + ":" + id, "load")
			.getBytes(StandardCharsets.UTF_8);
	}

	/** The outcome of the entry's last load that stored nothing, for waiters that poll (see fill.lua). */
	private byte[] outcomeKey(String id) {
		return this.parts.keyNaming().key(CacheParts.AREA, this.name + ":" + id, "outcome")
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

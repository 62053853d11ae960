package io.rediskit.cache;

import java.time.temporal.TemporalAccessor;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.cache.support.AbstractValueAdaptingCache;
import org.springframework.cache.support.NullValue;

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

	private final String name;

	private final CacheSpec spec;

	private final CacheParts parts;

	private final String channelName;

	private final CacheScripts scripts;

	private final NearCopies near;

	private final CacheStore store;

	private final CacheRefresh refresh;

	private final CacheFlight flight;

	private final CacheBloomGuard bloom;

	RedisKitCache(String name, CacheSpec spec, CacheParts parts) {
		super(spec.cacheNullValues());
		this.name = name;
		this.spec = spec;
		this.parts = parts;
		this.channelName = parts.channel(name);
		this.scripts = parts.scripts(name, spec.loadTimeout());
		this.near = new NearCopies(name, this.channelName, spec, parts);
		this.store = new CacheStore(name, spec, parts, this.scripts, this.near);
		this.refresh = new CacheRefresh(this.store, parts.refresher(), parts.outageLogInterval(), this::reload);
		this.flight = new CacheFlight(this.store, this.refresh);
		this.bloom = new CacheBloomGuard(spec.bloomFilter(), parts.bloomFilters(), this.store);
	}

	/** Loads as the holder of the lease a reload in the background took: the flight's owner load. */
	private void reload(Object key, String id, Callable<?> loader, byte[] token) {
		this.flight.reload(key, id, loader, token);
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
		this.near.watch(signals, this.parts.tracking());
		try {
			signals.watch(this.channelName, this::onMessage);
		}
		catch (RuntimeException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			this.store.unsubscribed(ex);
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
		return this.near.size();
	}

	/** @return whether the near cache answers reads now: it exists and its invalidations arrive */
	public boolean nearCacheActive() {
		return this.near.active();
	}

	/**
	 * @return how the near cache learns of changes now: {@code tracking} (server-assisted, the server's
	 * invalidations), {@code pubsub} (the caches' own messages), or {@code none} (no near cache, or the mode is not
	 * decided yet: Redis was not reached so far, or tracking was asked for and the server does not offer it)
	 */
	public String nearCacheInvalidation() {
		return this.near.mode();
	}

	/** A stored null is a null value whether or not this cache stores nulls (the Bloom filter answers one). */
	@Override
	protected @Nullable Object fromStoreValue(@Nullable Object storeValue) {
		return (storeValue == NullValue.INSTANCE) ? null : storeValue;
	}

	@Override
	protected @Nullable Object lookup(Object key) {
		String id = keyString(key);
		Observation lookup = this.store.startLookup();
		NearCache.Entry cached = this.near.get(id);
		if (cached != null) {
			this.store.hit(CacheTier.NEAR);
			CacheStore.endLookup(lookup, CacheTier.NEAR);
			return cached.value();
		}
		Object value;
		// In scope while Redis is asked: the Bloom filter's call and the driver's command spans are its children.
		try (Observation.Scope scope = lookup.openScope()) {
			value = lookupInRedis(id);
		}
		catch (RuntimeException ex) {
			Observations.stop(lookup, "error", ex);
			throw ex;
		}
		CacheStore.endLookup(lookup, (value != null) ? CacheTier.REDIS : null);
		return value;
	}

	/** A lookup the near cache could not answer: the Bloom filter, then Redis. */
	private @Nullable Object lookupInRedis(String id) {
		if (!this.bloom.mightExist(id)) {
			return NullValue.INSTANCE;
		}
		if (this.spec.singleFlight() == SingleFlight.EVERY_MISS) {
			return this.flight.read(id);
		}
		NearCopies.Snapshot snapshot = this.near.snapshot();
		CacheScripts.Entry entry;
		try {
			if (this.refresh.enabled()) {
				entry = this.scripts.read(id);
			}
			else {
				byte[] raw = this.scripts.get(id);
				entry = (raw != null) ? new CacheScripts.Entry(raw, -1) : null;
			}
		}
		catch (RuntimeException ex) {
			return unreachable(id, ex);
		}
		return read(id, entry, snapshot);
	}

	/**
	 * Reads an entry without blocking.
	 * @return a future of the value, of a {@link ValueWrapper} of {@code null} for a cached null (or a key the
	 * Bloom filter has never seen), or of {@code null} for a miss; never failing for an outage
	 */
	@Override
	public CompletableFuture<?> retrieve(Object key) {
		String id = keyString(key);
		Observation lookup = this.store.startLookup();
		NearCache.Entry cached = this.near.get(id);
		if (cached != null) {
			this.store.hit(CacheTier.NEAR);
			CacheStore.endLookup(lookup, CacheTier.NEAR);
			return CompletableFuture.completedFuture(toValueWrapper(cached.value()));
		}
		CompletableFuture<?> retrieved;
		try (Observation.Scope scope = lookup.openScope()) {
			retrieved = retrieveFromRedis(id, lookup);
		}
		if (lookup.isNoop()) {
			return retrieved;
		}
		return retrieved.whenComplete((value, ex) -> {
			if (ex != null) {
				Observations.stop(lookup, "error", ex);
			}
			else {
				CacheStore.endLookup(lookup, (value != null) ? CacheTier.REDIS : null);
			}
		});
	}

	/**
	 * Reads from Redis without blocking, the lookup in scope while each command is dispatched, whichever thread
	 * dispatches it (the caller's, or the driver's after the Bloom filter answered); the scope is closed at once.
	 */
	private CompletableFuture<?> retrieveFromRedis(String id, Observation lookup) {
		return this.bloom.mightExistAsync(id).thenCompose((might) -> {
			if (!might) {
				return CompletableFuture.completedFuture(toValueWrapper(NullValue.INSTANCE));
			}
			NearCopies.Snapshot snapshot = this.near.snapshot();
			CompletableFuture<CacheScripts.@Nullable Entry> read;
			try (Observation.Scope scope = lookup.openScope()) {
				read = this.scripts.readAsync(id).toCompletableFuture();
			}
			return read.handle((entry, ex) -> toValueWrapper((ex != null)
					? unreachable(id, CacheStore.asRuntime(Stages.unwrap(ex))) : read(id, entry, snapshot)));
		});
	}

	/**
	 * A plain read's reply: the value, kept in the near cache, or a miss. Without the loader an entry past its TTL
	 * cannot be revalidated: it is a miss, and the method reloads it.
	 */
	private @Nullable Object read(String id, CacheScripts.@Nullable Entry entry, NearCopies.Snapshot snapshot) {
		Object value = (entry != null) ? this.store.decode(entry.bytes()) : null;
		long left = (entry != null) ? this.spec.freshMillis(entry.pttl()) : 0;
		if (value == null || left <= 0) {
			this.store.miss();
			return null;
		}
		snapshot.keep(id, value, left);
		this.store.hit(CacheTier.REDIS);
		return value;
	}

	/** A plain read Redis cannot answer: the near cache's last copy ({@link OutagePolicy#SERVE_STALE}), or a miss. */
	private @Nullable Object unreachable(String id, RuntimeException failure) {
		this.store.outage(failure);
		Object stale = this.near.stale(id);
		if (stale == null) {
			this.store.miss();
		}
		return stale;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
		Objects.requireNonNull(valueLoader, "valueLoader must not be null");
		String id = keyString(key);
		NearCache.Entry cached = this.near.get(id);
		if (cached != null) {
			this.store.hit(CacheTier.NEAR);
			this.refresh.early(key, id, valueLoader, cached.leftMillis());
			return (T) unwrap(cached.value());
		}
		if (!this.bloom.mightExist(id)) {
			return null;
		}
		return (T) unwrap(this.flight.load(key, id, valueLoader));
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
		NearCache.Entry cached = this.near.get(id);
		if (cached != null) {
			this.store.hit(CacheTier.NEAR);
			this.refresh.early(key, id, inBackground, cached.leftMillis());
			return CompletableFuture.completedFuture((T) unwrap(cached.value()));
		}
		return this.bloom.mightExistAsync(id).thenCompose((might) -> {
			if (!might) {
				return CompletableFuture.completedFuture(null);
			}
			return this.flight.loadAsync(key, id, valueLoader, inBackground).thenApply((value) -> (T) unwrap(value));
		});
	}

	/** A loaded null travels as {@link NullValue} whether or not nulls are cached. */
	private static @Nullable Object unwrap(@Nullable Object value) {
		return (value == NullValue.INSTANCE) ? null : value;
	}

	@Override
	public void put(Object key, @Nullable Object value) {
		String id = keyString(key);
		Object stored = toStoreValue(value);
		byte[] lease = this.flight.takeLease(id);
		if (lease != null) {
			// The put after a plain read's miss: store, end the lease and hand the value to the waiters in one step.
			byte[] bytes;
			try {
				bytes = this.store.encode(stored);
			}
			catch (RuntimeException ex) {
				this.store.fill(id, lease, CacheScripts.NONE, 0, CacheStore.uncacheableMessage(id, ex));
				throw ex;
			}
			this.near.invalidate(id);
			this.store.store(id, lease, stored, bytes);
		}
		else {
			this.store.write(id, stored);
		}
		this.bloom.register(id, stored);
	}

	@Override
	public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
		String id = keyString(key);
		Object stored = toStoreValue(value);
		byte[] bytes = this.store.encode(stored);
		this.near.invalidate(id);
		byte[] existing;
		try {
			existing = this.scripts.putIfAbsent(id, bytes, this.store.ttlMillis(stored));
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
			return null;
		}
		if (existing == null) {
			this.bloom.register(id, stored);
			return null;
		}
		Object previous = this.store.decode(existing);
		return (previous != null) ? toValueWrapper(previous) : null;
	}

	@Override
	public void evict(Object key) {
		evictIfPresent(key);
	}

	@Override
	public boolean evictIfPresent(Object key) {
		String id = keyString(key);
		this.near.invalidate(id);
		try {
			return this.scripts.evict(id);
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
			return false;
		}
	}

	/**
	 * Deletes every entry of this cache on every master, with {@code SCAN} and {@code UNLINK} (never
	 * {@code KEYS}), and tells every near cache; an entry written meanwhile may survive.
	 */
	@Override
	public void clear() {
		this.near.clear();
		try {
			CacheClearing.clear(this.parts, this.name);
			this.scripts.publishCleared();
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
		}
	}

	@Override
	public boolean invalidate() {
		clear();
		return false;
	}

	/** A message on the cache's channel: an invalidation for the near cache, and a load's outcome for its waiters. */
	private void onMessage(byte[] bytes) {
		Message message;
		try {
			message = Message.read(bytes);
		}
		catch (RuntimeException ex) {
			logger.debug("Ignoring a malformed message on cache '" + this.name + "'s channel", ex);
			return;
		}
		this.near.onMessage(message);
		if (message.type() == CacheMessages.LOADED || message.type() == CacheMessages.LOADED_NULL
				|| message.type() == CacheMessages.FAILED) {
			this.flight.onOutcome(message);
		}
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

}

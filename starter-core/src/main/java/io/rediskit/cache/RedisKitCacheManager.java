package io.rediskit.cache;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.CacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * A Spring {@link CacheManager} over Redis that protects the database behind it: its {@link RedisKitCache}s load
 * a missing entry once across every instance, spread expiries, cache nulls briefly, keep working (uncached)
 * while Redis is down, and optionally answer hits from a near cache in memory. Caches named in the configuration
 * have their own {@link CacheSpec}; any other name gets the default spec on first use.
 * <p>
 * <b>Near cache.</b> Two ways to learn that a copy is out of date, chosen per cache by its
 * {@link NearCacheSpec#invalidation()}; once an invalidation has arrived the old value is never served again by
 * that instance, and the instance's own writes drop its copy at once.
 * <ul>
 * <li><b>Tracking</b> ({@link NearCacheInvalidation#AUTO} where the server offers it, the default, or
 * {@link NearCacheInvalidation#TRACKING}): <code>CLIENT TRACKING ON BCAST PREFIX &lt;prefix&gt;cache:&#123;</code>
 * over RESP3, on one connection per manager on standalone and Sentinel, on one connection per master on Redis
 * Cluster (each master sends the invalidations of the writes it runs; the masters followed through failovers and
 * nodes added); the server invalidates a copy whoever changed the key: these caches, another application,
 * {@code redis-cli}, an expiry, an eviction, a {@code FLUSHDB}. An instance's own load is not kept in its own near
 * cache (the server's invalidation of the load's write cannot be told from another's): the next read goes to
 * Redis once.</li>
 * <li><b>Pub/sub</b> ({@link NearCacheInvalidation#PUBSUB}, or {@code AUTO} where tracking is not available):
 * each write, eviction and load publishes the entry's key on the cache's channel, in the same script as the
 * write; every instance drops its copy when the message arrives. Writes made to the keys by anything but these
 * caches (a {@code SET} from another tool, an expiry) are not announced; an entry lives in memory at most the
 * near cache's TTL, which bounds that staleness.</li>
 * </ul>
 * While the connection that carries a near cache's invalidations is down or silent near caches are flushed and
 * bypassed, so a missed invalidation cannot leave a stale value behind: every read goes to Redis until the
 * tracking connection, reconnected, has tracking on again (on Cluster: every master's, and a master that a
 * failover promoted or that joined has its own), or a probe published by this instance comes back through the
 * subscription. A connection that dies silently is noticed within three heartbeats (one heartbeat is
 * 1 s by default), during which an invalidation may be missed (tracking: late, since it is the same connection).
 * The pub/sub subscription runs in both modes: it carries the outcomes of loads to the callers waiting for them.
 * <p>
 * <b>Reloads in the background</b> (early refresh, stale-while-revalidate) run on the executor the manager is given,
 * the application's: the manager starts no threads of its own for them. A manager given none refuses, at
 * construction, a spec that would reload in the background, rather than reload on the reading thread (an
 * asynchronous read would then run the loader on the driver's event loop) or skip reloads silently.
 * <p>
 * A cache first used while Redis is down subscribes its channel as soon as Redis is back (tried every heartbeat);
 * until then its waiters poll and its near cache is bypassed.
 * <p>
 * Nothing connects before the first cache is used; {@link #close()} ends the subscription and the tracking
 * connections.
 */
public class RedisKitCacheManager implements CacheManager, AutoCloseable {

	/** The heartbeat of the subscription unless given. */
	public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);

	private final CacheParts parts;

	private volatile Observations observations = Observations.NOOP;

	private final CacheSpec defaults;

	private final Map<String, CacheSpec> configured;

	private final Map<String, RedisKitCache> caches = new ConcurrentHashMap<>();

	private final @Nullable Executor refresher;

	/** Threads of the manager's own, when it was given no {@link Background}: closed with it. */
	private final @Nullable Background own;

	/**
	 * A manager with every option.
	 * @param scripts runs the cache scripts (the starter's, behind the availability gate)
	 * @param commands runs reads and publications
	 * @param connectionFactory the application's connection factory: its Lettuce client carries the subscription,
	 * and {@code clear()} scans its masters
	 * @param keyNaming names keys and channels
	 * @param values reads and writes values, such as a {@link CacheJsonSerializer}
	 * @param defaults the spec of caches not configured
	 * @param configured the configured caches by name, in order
	 * @param listeners told of every operation, in order
	 * @param heartbeat how often the subscription is probed
	 * @param background runs the heartbeat and opens the subscription's connection: the application's, shared by
	 * every primitive; {@code null} for threads of the manager's own, closed with it
	 * @throws InvalidSpecException if a configured cache has a near cache and the factory is not Lettuce, or
	 * reloads in the background (which needs the executor of the longer constructor)
	 */
	public RedisKitCacheManager(ScriptExecutor scripts, CommandExecutor commands,
			RedisConnectionFactory connectionFactory, KeyNaming keyNaming, RedisSerializer<Object> values,
			CacheSpec defaults, Map<String, CacheSpec> configured, List<? extends CacheListener> listeners,
			Duration heartbeat, @Nullable Background background) {
		this(scripts, commands, connectionFactory, keyNaming, values, defaults, configured, listeners, heartbeat,
				background, null, null);
	}

	/**
	 * A manager with every option, reloads in the background and Bloom filters included.
	 * @param scripts runs the cache scripts (the starter's, behind the availability gate)
	 * @param commands runs reads and publications
	 * @param connectionFactory the application's connection factory: its Lettuce client carries the subscription,
	 * and {@code clear()} scans its masters
	 * @param keyNaming names keys and channels
	 * @param values reads and writes values, such as a {@link CacheJsonSerializer}
	 * @param defaults the spec of caches not configured
	 * @param configured the configured caches by name, in order
	 * @param listeners told of every operation, in order
	 * @param heartbeat how often the subscription is probed
	 * @param background runs the heartbeat and opens the subscription's connection: the application's, shared by
	 * every primitive; {@code null} for threads of the manager's own, closed with it
	 * @param refresher runs the reloads in the background (early refresh, stale-while-revalidate), which call the
	 * loaders: the application's task executor; {@code null} if no spec reloads in the background
	 * @param bloomFilters the Bloom filters that caches may name; {@code null} if none may
	 * @throws InvalidSpecException if a configured cache has a near cache and the factory is not Lettuce, names a
	 * Bloom filter that does not exist, or reloads in the background and there is no {@code refresher}
	 */
	public RedisKitCacheManager(ScriptExecutor scripts, CommandExecutor commands,
			RedisConnectionFactory connectionFactory, KeyNaming keyNaming, RedisSerializer<Object> values,
			CacheSpec defaults, Map<String, CacheSpec> configured, List<? extends CacheListener> listeners,
			Duration heartbeat, @Nullable Background background, @Nullable Executor refresher,
			@Nullable BloomFilterRegistry bloomFilters) {
		Objects.requireNonNull(connectionFactory, "connectionFactory must not be null");
		Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		Objects.requireNonNull(heartbeat, "heartbeat must not be null");
		if (heartbeat.toMillis() < 1) {
			throw new InvalidSpecException("heartbeat", "must be at least 1ms, was " + heartbeat);
		}
		this.defaults = Objects.requireNonNull(defaults, "defaults must not be null");
		this.configured = new LinkedHashMap<>(configured);
		this.configured.keySet().forEach((name) -> Names.requireValid("cache", name));
		// One piece for the subscription's and the tracking's threads: made on first use, so never without Lettuce.
		this.own = (background != null) ? null : Background.standalone("cache");
		Background threads = (background != null) ? background : this.own;
		CacheSignals signals = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? new CacheSignals(lettuce, commands, keyNaming.areaKey(CacheParts.AREA, "probe:"), heartbeat, threads)
				: null;
		CacheTracking tracking = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? new CacheTracking(lettuce, keyNaming, heartbeat, threads)
				: null;
		if (signals == null) {
			requireNoNearCache("defaults", defaults);
			this.configured.forEach(this::requireNoNearCache);
		}
		requireBloomFilter("defaults", defaults, bloomFilters);
		this.configured.forEach((name, spec) -> requireBloomFilter(name, spec, bloomFilters));
		if (refresher == null) {
			requireNoReloads("defaults", defaults);
			this.configured.forEach(RedisKitCacheManager::requireNoReloads);
		}
		this.refresher = refresher;
		this.parts = new CacheParts(Objects.requireNonNull(scripts, "scripts must not be null"),
				Objects.requireNonNull(commands, "commands must not be null"), keyNaming,
				Objects.requireNonNull(values, "values must not be null"), Listeners.of("cache", listeners), signals,
				tracking,
				Duration.ofSeconds(10), connectionFactory, this::refresh,
				(name) -> Objects.requireNonNull(bloomFilters, "bloomFilters").get(name), this::observations);
	}

	/**
	 * Makes the caches' lookups ({@link RedisKitObservation#CACHE_LOOKUP}, tagged with the tier that answered) and
	 * their single-flight loads and waits ({@link RedisKitObservation#CACHE_LOAD}) observations. Applies to caches
	 * made before too.
	 * @param observations where the observations are made; {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The cache of a name, created on first use with its configured spec or the defaults.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @return the cache
	 * @throws IllegalArgumentException if the name is not valid
	 */
	@Override
	public RedisKitCache getCache(String name) {
		RedisKitCache cache = this.caches.get(name);
		if (cache != null) {
			return cache;
		}
		Names.requireValid("cache", name);
		return this.caches.computeIfAbsent(name, (key) -> {
			RedisKitCache created = new RedisKitCache(key, this.configured.getOrDefault(key, this.defaults), this.parts);
			created.subscribe();
			return created;
		});
	}

	/** @return the configured caches' names and those used so far */
	@Override
	public Collection<String> getCacheNames() {
		Set<String> names = new LinkedHashSet<>(this.configured.keySet());
		names.addAll(this.caches.keySet());
		return names;
	}

	/** @return the caches used so far */
	public Collection<RedisKitCache> caches() {
		return List.copyOf(this.caches.values());
	}

	/**
	 * Evicts one entry of a cache, in Redis and in every instance's near cache, whether or not this manager has made
	 * the cache: one it has made does so as its {@link RedisKitCache#evictIfPresent} does; for any other name the
	 * eviction runs without making the cache here (no subscription, no near cache), for an operator acting on a
	 * cache that other instances use. Its entries and its channel depend on its name only.
	 * @param name the cache's name
	 * @param key the entry's key as the cache stores it (the {@code toString()} of the method's key)
	 * @return whether it existed
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws org.springframework.dao.DataAccessException if Redis fails, for a cache not made here (one made here
	 * logs an outage and answers {@code false}, as its {@code evictIfPresent} does)
	 */
	public boolean evictIfPresent(String name, String key) {
		RedisKitCache cache = this.caches.get(name);
		if (cache != null) {
			return cache.evictIfPresent(key);
		}
		Names.requireValid("cache", name);
		return this.parts.scripts(name, spec(name).loadTimeout()).evict(key);
	}

	/**
	 * Deletes every entry of a cache on every master and tells every instance's near cache, whether or not this
	 * manager has made the cache, as {@link #evictIfPresent(String, String)} does for one entry; an entry written
	 * meanwhile may survive.
	 * @param name the cache's name
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws org.springframework.dao.DataAccessException if Redis fails, for a cache not made here (one made here
	 * logs an outage, as its {@link RedisKitCache#clear()} does)
	 */
	public void clear(String name) {
		RedisKitCache cache = this.caches.get(name);
		if (cache != null) {
			cache.clear();
			return;
		}
		Names.requireValid("cache", name);
		CacheClearing.clear(this.parts, name);
		this.parts.scripts(name, spec(name).loadTimeout()).publishCleared();
	}

	/**
	 * The spec a cache has or would have.
	 * @param name the cache's name
	 * @return its spec
	 */
	public CacheSpec spec(String name) {
		return this.configured.getOrDefault(name, this.defaults);
	}

	/**
	 * @return how long the near caches were bypassed the last time the tracking connection was lost, until tracking
	 * was on again; {@code null} before any loss or without tracking (for tests and diagnostics)
	 */
	@Nullable Duration lastTrackingResync() {
		return (this.parts.tracking() != null) ? this.parts.tracking().lastResync() : null;
	}

	/**
	 * Ends the subscription, the tracking connection and their heartbeats, and waits for the connections to close
	 * (at most {@link BoundedStop#TIMEOUT}), so that the connection factory shut down next finds none still
	 * closing; the caches keep working.
	 */
	@Override
	public void close() {
		CompletableFuture<Void> tracking = (this.parts.tracking() != null) ? this.parts.tracking().closeAsync()
				: CompletableFuture.completedFuture(null);
		CompletableFuture<Void> signals = (this.parts.signals() != null) ? this.parts.signals().closeAsync()
				: CompletableFuture.completedFuture(null);
		// The connection factory may shut its client down next: a connection still closing then is closed twice.
		BoundedStop.await(CompletableFuture.allOf(tracking, signals), BoundedStop.TIMEOUT,
				"the cache manager's connections");
		if (this.own != null) {
			this.own.close();
		}
	}

	private void refresh(Runnable reload) {
		if (this.refresher == null) {
			// Unreachable while the constructor refuses specs that reload; a cache logs a rejected reload.
			throw new RejectedExecutionException("The cache manager has no executor for reloads in the background");
		}
		this.refresher.execute(reload);
	}

	private static void requireNoReloads(String name, CacheSpec spec) {
		if (spec.earlyRefresh() > 0 || !spec.staleWhileRevalidate().isZero()) {
			throw new InvalidSpecException((spec.earlyRefresh() > 0) ? "earlyRefresh" : "staleWhileRevalidate",
					"of cache '" + name + "' reloads entries in the background, which needs an executor (the"
							+ " application's task executor), and the manager was given none");
		}
	}

	private static void requireBloomFilter(String name, CacheSpec spec, @Nullable BloomFilterRegistry bloomFilters) {
		if (spec.bloomFilter() == null) {
			return;
		}
		if (bloomFilters == null) {
			throw new InvalidSpecException("bloomFilter", "of cache '" + name + "' names the Bloom filter '"
					+ spec.bloomFilter() + "', but the manager has no Bloom filters (redis-kit.bloom)");
		}
		try {
			bloomFilters.get(spec.bloomFilter());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidSpecException("bloomFilter", "of cache '" + name + "' names the Bloom filter '"
					+ spec.bloomFilter() + "', which is not configured: " + ex.getMessage());
		}
	}

	private void requireNoNearCache(String name, CacheSpec spec) {
		if (spec.nearCache() != null) {
			throw new InvalidSpecException("nearCache", "of cache '" + name + "' needs a Lettuce connection factory,"
					+ " whose client carries the invalidations");
		}
	}

}

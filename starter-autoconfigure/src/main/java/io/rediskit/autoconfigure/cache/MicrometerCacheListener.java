package io.rediskit.autoconfigure.cache;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.cache.CacheListener;
import io.rediskit.cache.CacheTier;
import org.jspecify.annotations.Nullable;

/**
 * Records the caches as Micrometer meters; the {@code cache} tag is the cache's name, never a key.
 * <ul>
 * <li>{@code rediskit.cache.gets} (counter; {@code cache}, {@code result} = hit | miss, {@code tier} = near |
 * redis | stale for hits, none for misses): reads; {@code stale} is the near cache's last copy served while Redis
 * could not answer.</li>
 * <li>{@code rediskit.cache.loads} (timer; {@code cache}, {@code result} = success | failure): loader calls made
 * by this instance, and their time.</li>
 * <li>{@code rediskit.cache.waits} (timer; {@code cache}, {@code result} = value | failure | timeout): callers
 * that waited for another instance's load (single-flight), and how long.</li>
 * <li>{@code rediskit.cache.undecodable} (counter; {@code cache}): entries that could not be read back, treated as
 * misses.</li>
 * <li>{@code rediskit.cache.outages} (counter; {@code cache}): operations Redis could not answer (reads went to
 * the loader, writes were skipped).</li>
 * <li>{@code rediskit.cache.near.invalidations} (counter; {@code cache}): near-cache entries dropped because an
 * instance wrote or evicted them.</li>
 * <li>{@code rediskit.cache.filtered} (counter; {@code cache}): keys the cache's Bloom filter had never seen,
 * answered as a cached null without a read or a load.</li>
 * <li>{@code rediskit.cache.unfiltered} (counter; {@code cache}): keys the cache's Bloom filter had never seen, read
 * and loaded as usual because the filter is not complete (never seeded, or lost in Redis).</li>
 * <li>{@code rediskit.cache.refreshes} (counter; {@code cache}, {@code trigger} = early | stale): reloads in the
 * background this instance started, before the entry's expiry (early refresh) or past it
 * (stale-while-revalidate).</li>
 * </ul>
 * The gauge {@code rediskit.cache.near.size} is registered by {@link CacheMetrics}.
 */
public class MicrometerCacheListener implements CacheListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerCacheListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onHit(String cacheName, CacheTier tier) {
		counter("rediskit.cache.gets", "Cache reads, by result and tier", cacheName, "hit", tier.tag()).increment();
	}

	@Override
	public void onMiss(String cacheName) {
		counter("rediskit.cache.gets", "Cache reads, by result and tier", cacheName, "miss", "none").increment();
	}

	@Override
	public void onLoad(String cacheName, Duration time, boolean success) {
		timer("rediskit.cache.loads", "Loader calls of this instance, by result", cacheName,
				success ? "success" : "failure").record(time);
	}

	@Override
	public void onWait(String cacheName, Duration time, WaitOutcome outcome) {
		timer("rediskit.cache.waits", "Waits for another instance's load, by what ended them", cacheName,
				outcome.tag()).record(time);
	}

	@Override
	public void onUndecodable(String cacheName, RuntimeException failure) {
		counter("rediskit.cache.undecodable", "Cached entries that could not be read back", cacheName, null, null)
			.increment();
	}

	@Override
	public void onOutage(String cacheName, RuntimeException failure) {
		counter("rediskit.cache.outages", "Cache operations Redis could not answer", cacheName, null, null).increment();
	}

	@Override
	public void onNearInvalidation(String cacheName) {
		counter("rediskit.cache.near.invalidations", "Near-cache entries dropped on another write", cacheName, null,
				null).increment();
	}

	@Override
	public void onFiltered(String cacheName) {
		counter("rediskit.cache.filtered", "Keys the Bloom filter had never seen, answered without a read", cacheName,
				null, null).increment();
	}

	@Override
	public void onUnfiltered(String cacheName) {
		counter("rediskit.cache.unfiltered", "Keys the Bloom filter had never seen, read because it is not complete",
				cacheName, null, null).increment();
	}

	@Override
	public void onRefresh(String cacheName, boolean expired) {
		String trigger = expired ? "stale" : "early";
		this.counters.computeIfAbsent("rediskit.cache.refreshes" + '\u0000' + cacheName + '\u0000' + trigger,
				(key) -> Counter.builder("rediskit.cache.refreshes")
					.description("Reloads in the background, by what started them")
					.tag("cache", cacheName)
					.tag("trigger", trigger)
					.register(this.registry))
			.increment();
	}

	private Counter counter(String name, String description, String cacheName, @Nullable String result,
			@Nullable String tier) {
		return this.counters.computeIfAbsent(name + '\u0000' + cacheName + '\u0000' + result + '\u0000' + tier,
				(key) -> {
					Counter.Builder builder = Counter.builder(name).description(description).tag("cache", cacheName);
					if (result != null) {
						builder.tag("result", result).tag("tier", tier);
					}
					return builder.register(this.registry);
				});
	}

	private Timer timer(String name, String description, String cacheName, String result) {
		return this.timers.computeIfAbsent(name + '\u0000' + cacheName + '\u0000' + result,
				(key) -> Timer.builder(name)
					.description(description)
					.tag("cache", cacheName)
					.tag("result", result)
					.register(this.registry));
	}

}

package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.micrometer.observation.Observation;
import io.rediskit.cache.CacheListener.WaitOutcome;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.interceptor.CacheOperationInvoker;
import org.springframework.cache.support.NullValue;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * The byte store under one cache, as Spring Data's {@code RedisCacheWriter} is under its {@code RedisCache}: values
 * encoded and decoded, writes and the ends of loads through {@link CacheScripts} with this instance's copies kept
 * right ({@link NearCopies}), an outage turned into the cache's policy (skipped, warned once per interval, counted)
 * and every report to the {@link CacheListener}s. A stored null is {@link NullValue#INSTANCE}, whether or not the
 * cache stores nulls.
 */
final class CacheStore {

	private static final Log logger = LogFactory.getLog(RedisKitCache.class);

	/** How a stored null looks in Redis: not JSON, so no serializer's output starts with it by accident. */
	static final byte[] NULL_MARKER = { 0, 'n', 'u', 'l', 'l' };

	private static final byte[] NONE = CacheScripts.NONE;

	private final String name;

	private final CacheSpec spec;

	private final CacheParts parts;

	private final CacheScripts scripts;

	private final NearCopies near;

	private final ThrottledLog outages;

	/** This instance's average load time of this cache, in ns (0 before the first load): XFetch's delta. */
	private volatile long averageLoadNanos;

	CacheStore(String name, CacheSpec spec, CacheParts parts, CacheScripts scripts, NearCopies near) {
		this.name = name;
		this.spec = spec;
		this.parts = parts;
		this.scripts = scripts;
		this.near = near;
		this.outages = new ThrottledLog(logger, parts.outageLogInterval(), "Cache '" + name + "' cannot reach Redis; "
				+ ((spec.outagePolicy() == OutagePolicy.SERVE_STALE) ? "reads are answered from the near cache's copies"
						+ " or the loader" : "reads go to the loader")
				+ ", writes and evictions are skipped");
	}

	String name() {
		return this.name;
	}

	CacheSpec spec() {
		return this.spec;
	}

	CacheScripts scripts() {
		return this.scripts;
	}

	NearCopies near() {
		return this.near;
	}

	/** @return the value, {@link NullValue#INSTANCE} for a stored null, or {@code null} if it cannot be read */
	@Nullable Object decode(byte[] raw) {
		if (Arrays.equals(raw, NULL_MARKER)) {
			return this.spec.cacheNullValues() ? NullValue.INSTANCE : null;
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

	byte[] encode(Object stored) {
		if (stored == NullValue.INSTANCE) {
			return NULL_MARKER;
		}
		byte[] bytes = this.parts.values().serialize(stored);
		if (bytes == null) {
			throw new SerializationException("The serializer wrote a " + stored.getClass().getName() + " as null");
		}
		return bytes;
	}

	/** Writes an entry, dropping this instance's copy first; skipped in an outage. */
	void write(String id, Object stored) {
		byte[] bytes = encode(stored);
		this.near.invalidate(id);
		try {
			this.scripts.put(id, bytes, ttlMillis(stored));
		}
		catch (RuntimeException ex) {
			outage(ex);
		}
	}

	/** {@link #write} without blocking, of a loaded value; a value that cannot be encoded is not stored. */
	void writeAsync(String id, Object stored) {
		byte[] bytes;
		try {
			bytes = encode(stored);
		}
		catch (RuntimeException ex) {
			logger.debug("Cache '" + this.name + "' cannot store a loaded value", ex);
			return;
		}
		this.near.invalidate(id);
		this.scripts.putAsync(id, bytes, ttlMillis(stored)).exceptionally((ex) -> {
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

	long ttlMillis(Object stored) {
		return this.spec.jitteredTtlMillis(stored == NullValue.INSTANCE);
	}

	/** @return whether Redis ran the fill (not, in an outage) */
	boolean fill(String id, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		try {
			this.scripts.fill(id, token, bytes, ttlMillis, message);
			return true;
		}
		catch (RuntimeException ex) {
			outage(ex);
			return false;
		}
	}

	/** @return a future of whether Redis ran the fill (not, in an outage) */
	CompletableFuture<Boolean> fillAsync(String id, byte[] token, byte[] bytes, long ttlMillis, byte[] message) {
		return this.scripts.fillAsync(id, token, bytes, ttlMillis, message).handle((ignored, ex) -> {
			if (ex != null) {
				outage(asRuntime(Stages.unwrap(ex)));
				return false;
			}
			return true;
		});
	}

	/**
	 * Ends a load that stores its value: the fill, and the value in this instance's near cache, where the fill's
	 * own message keeps it rather than drops it.
	 * @return whether Redis ran the fill
	 */
	boolean store(String id, byte[] token, Object stored, byte[] bytes) {
		long ttlMillis = ttlMillis(stored);
		NearCopies.OwnLoad own = this.near.remember(id, stored, bytes, this.spec.freshMillis(ttlMillis));
		boolean filled = fill(id, token, bytes, ttlMillis, loadedMessage(id, stored, bytes));
		this.near.stored(id, own, filled);
		return filled;
	}

	/** {@link #store} without blocking. */
	CompletableFuture<Boolean> storeAsync(String id, byte[] token, Object stored, byte[] bytes) {
		long ttlMillis = ttlMillis(stored);
		NearCopies.OwnLoad own = this.near.remember(id, stored, bytes, this.spec.freshMillis(ttlMillis));
		return fillAsync(id, token, bytes, ttlMillis, loadedMessage(id, stored, bytes)).thenApply((filled) -> {
			this.near.stored(id, own, filled);
			return filled;
		});
	}

	private static byte[] loadedMessage(String id, Object stored, byte[] bytes) {
		return CacheMessages.of((stored == NullValue.INSTANCE) ? CacheMessages.LOADED_NULL : CacheMessages.LOADED, id,
				bytes);
	}

	/** The message that ends a load which stored nothing because it failed, for every waiter. */
	static byte[] failedMessage(String id, Throwable failure) {
		return CacheMessages.of(CacheMessages.FAILED, id, describe(failure).getBytes(StandardCharsets.UTF_8));
	}

	/** The message that ends a load whose value could not be encoded, for every waiter. */
	static byte[] uncacheableMessage(String id, RuntimeException encoding) {
		return CacheMessages.of(CacheMessages.FAILED, id,
				("the value cannot be cached: " + encoding.getMessage()).getBytes(StandardCharsets.UTF_8));
	}

	/** The message that ends a load which returned a null that is not cached. */
	static byte[] nullMessage(String id) {
		return CacheMessages.of(CacheMessages.LOADED_NULL, id, NONE);
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

	/**
	 * Reports an operation Redis could not answer: warned once per interval and counted.
	 * @throws RuntimeException the failure itself, when it is not an outage but a command error
	 */
	void outage(RuntimeException failure) {
		if (!RedisFailures.isUnavailable(failure)) {
			throw failure;
		}
		this.outages.warn(failure);
		this.parts.listeners().notify((l) -> l.onOutage(this.name, failure));
	}

	/** Warns that the cache's channel could not be subscribed yet. */
	void unsubscribed(RuntimeException failure) {
		this.outages.warn(failure, "its channel is not subscribed yet (tried again every heartbeat): waiters poll and"
				+ " the near cache is bypassed");
	}

	/** Counts an outage of work nobody waits for, which warns in words of its own. */
	void unreachable(RuntimeException failure) {
		this.parts.listeners().notify((l) -> l.onOutage(this.name, failure));
	}

	void refreshed(boolean expired) {
		this.parts.listeners().notify((l) -> l.onRefresh(this.name, expired));
	}

	/** @return the observation of a lookup, started now; {@link Observation#NOOP} when nothing observes */
	Observation startLookup() {
		return this.parts.observations().get().start(RedisKitObservation.CACHE_LOOKUP, this.name, null);
	}

	/**
	 * Ends a lookup's observation.
	 * @param tier the tier that answered, or {@code null} for a miss
	 */
	static void endLookup(Observation lookup, @Nullable CacheTier tier) {
		if (!lookup.isNoop()) {
			Observations.stopWithDetail(lookup, (tier != null) ? "hit" : "miss",
					(tier != null) ? tier.name().toLowerCase(Locale.ROOT) : "none");
		}
	}

	/** @return the observation of a load or a wait for one, started now */
	Observation startLoad() {
		return this.parts.observations().get().start(RedisKitObservation.CACHE_LOAD, this.name, null);
	}

	void miss() {
		this.parts.listeners().notify((l) -> l.onMiss(this.name));
	}

	void hit(CacheTier tier) {
		this.parts.listeners().notify((l) -> l.onHit(this.name, tier));
	}

	void filtered() {
		this.parts.listeners().notify((l) -> l.onFiltered(this.name));
	}

	void unfiltered() {
		this.parts.listeners().notify((l) -> l.onUnfiltered(this.name));
	}

	/** Reports a call of the loader that began at {@code start} ({@link System#nanoTime()}) and ends now. */
	void loaded(long start, boolean success) {
		long nanos = System.nanoTime() - start;
		long average = this.averageLoadNanos;
		// A moving average over about the last eight loads; racing updates lose one sample, which is fine here.
		this.averageLoadNanos = (average == 0) ? nanos : average + (nanos - average) / 8;
		Duration time = Duration.ofNanos(nanos);
		this.parts.listeners().notify((l) -> l.onLoad(this.name, time, success));
	}

	/** @return this instance's average load time, in ns, 0 before the first load */
	long averageLoadNanos() {
		return this.averageLoadNanos;
	}

	/** Reports a wait for another caller's load that began at {@code start} and ends now. */
	void waitEnded(long start, WaitOutcome outcome) {
		Duration time = Duration.ofNanos(System.nanoTime() - start);
		this.parts.listeners().notify((l) -> l.onWait(this.name, time, outcome));
	}

	static RuntimeException asRuntime(Throwable failure) {
		if (failure instanceof RuntimeException runtime) {
			return runtime;
		}
		if (failure instanceof Error error) {
			throw error;
		}
		return new CompletionException(failure);
	}

}

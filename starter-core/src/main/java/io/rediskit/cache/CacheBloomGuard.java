package io.rediskit.cache;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.rediskit.bloom.BloomAnswer;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.support.NullValue;

/**
 * The Bloom filter in front of one cache, when its spec names one: a key a complete filter has never seen is answered
 * as a cached {@code null} after one check, without a read, a lease or a load; a key whose value is written joins the
 * filter. The check is one round trip that also tells whether the filter is complete ({@link BloomFilter#check}):
 * a filter never seeded, or lost in Redis and perhaps created anew by a write since, lets every read through
 * (counted, and logged once per interval with what to do), since its "never seen" would hide entries that exist;
 * with a {@link io.rediskit.bloom.BloomFilterSeed} its registry seeds it again meanwhile. A filter Redis cannot answer
 * lets the read through, as if the key might exist. The filter is looked up by name on first use, so that a cache can
 * be made before the filter's registry has it.
 */
final class CacheBloomGuard {

	private static final Log logger = LogFactory.getLog(CacheBloomGuard.class);

	private final @Nullable String filterName;

	private final Function<String, BloomFilter> filters;

	private final CacheStore store;

	private final @Nullable ThrottledLog incomplete;

	private volatile @Nullable BloomFilter filter;

	CacheBloomGuard(@Nullable String filterName, Function<String, BloomFilter> filters, CacheStore store) {
		this.filterName = filterName;
		this.filters = filters;
		this.store = store;
		this.incomplete = (filterName != null) ? new ThrottledLog(logger, Duration.ofSeconds(10), "Bloom filter '"
				+ filterName + "' of cache '" + store.name() + "' is not complete (never seeded, or lost in Redis and"
				+ " perhaps created anew by a write): the cache reads and loads every key as if it had no filter until"
				+ " the filter is seeded. Declare a BloomFilterSeed bean for '" + filterName + "' (or call"
				+ " BloomFilter.seed with every id at startup)") : null;
	}

	/** @return whether the key may exist: no filter, the filter has seen it or is not complete, or cannot answer */
	boolean mightExist(String id) {
		BloomFilter bloom = filter();
		if (bloom == null) {
			return true;
		}
		try {
			return answered(bloom.check(id));
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
			return true;
		}
	}

	/** {@link #mightExist} without blocking. */
	CompletableFuture<Boolean> mightExistAsync(String id) {
		BloomFilter bloom = filter();
		if (bloom == null) {
			return CompletableFuture.completedFuture(true);
		}
		return bloom.checkAsync(id).toCompletableFuture().handle((answer, ex) -> {
			if (ex != null) {
				this.store.outage(CacheStore.asRuntime(Stages.unwrap(ex)));
				return true;
			}
			return answered(answer);
		});
	}

	private boolean answered(BloomAnswer answer) {
		switch (answer) {
			case NEVER_SEEN -> this.store.filtered();
			case NOT_COMPLETE -> {
				this.store.unfiltered();
				if (this.incomplete != null) {
					this.incomplete.warn(new IllegalStateException("Bloom filter '" + this.filterName + "' is not complete"));
				}
			}
			case SEEN -> {
			}
		}
		return answer.mayExist();
	}

	/** A written value exists: its key joins the filter, or the filter would hide it. */
	void register(String id, Object stored) {
		BloomFilter bloom = filter();
		if (bloom == null || stored == NullValue.INSTANCE) {
			return;
		}
		try {
			bloom.add(id);
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
		}
	}

	private @Nullable BloomFilter filter() {
		if (this.filterName == null) {
			return null;
		}
		BloomFilter resolved = this.filter;
		if (resolved == null) {
			resolved = this.filters.apply(this.filterName);
			this.filter = resolved;
		}
		return resolved;
	}

}

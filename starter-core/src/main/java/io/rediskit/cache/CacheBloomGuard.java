package io.rediskit.cache;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.rediskit.bloom.BloomFilter;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.support.NullValue;

/**
 * The Bloom filter in front of one cache, when its spec names one: a key the filter has never seen is answered as
 * a cached {@code null} after one check, without a read, a lease or a load; a key whose value is written joins the
 * filter. A filter Redis cannot answer lets the read through, as if the key might exist. The filter is looked up by
 * name on first use, so that a cache can be made before the filter's registry has it.
 */
final class CacheBloomGuard {

	private final @Nullable String filterName;

	private final Function<String, BloomFilter> filters;

	private final CacheStore store;

	private volatile @Nullable BloomFilter filter;

	CacheBloomGuard(@Nullable String filterName, Function<String, BloomFilter> filters, CacheStore store) {
		this.filterName = filterName;
		this.filters = filters;
		this.store = store;
	}

	/** @return whether the key may exist: no filter, the filter has seen it, or the filter cannot answer */
	boolean mightExist(String id) {
		BloomFilter bloom = filter();
		if (bloom == null) {
			return true;
		}
		try {
			if (bloom.mightContain(id)) {
				return true;
			}
		}
		catch (RuntimeException ex) {
			this.store.outage(ex);
			return true;
		}
		this.store.filtered();
		return false;
	}

	/** {@link #mightExist} without blocking. */
	CompletableFuture<Boolean> mightExistAsync(String id) {
		BloomFilter bloom = filter();
		if (bloom == null) {
			return CompletableFuture.completedFuture(true);
		}
		return bloom.mightContainAsync(id).toCompletableFuture().handle((found, ex) -> {
			if (ex != null) {
				this.store.outage(CacheStore.asRuntime(Stages.unwrap(ex)));
				return true;
			}
			if (!found) {
				this.store.filtered();
			}
			return found;
		});
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

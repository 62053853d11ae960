package io.rediskit.cache;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * One cache's entries in this instance's memory, bounded, each valid only while it is younger than the near
 * cache's TTL and the invalidation subscription has stayed trusted since it was stored (the same
 * {@link CacheSignals#epoch() epoch}).
 * <p>
 * A value read from Redis is stored only if no invalidation of this cache arrived between the moment the read was
 * sent and its reply ({@link #stamp()}): otherwise an invalidation overtaking the reply of an older read would
 * leave the older value behind it for good.
 */
final class NearCache {

	private final int maxEntries;

	private final long ttlNanos;

	private final Map<String, Entry> entries = new ConcurrentHashMap<>();

	// Insertion order, for a bounded size: the oldest keys go first. May hold keys already removed (and a key
	// twice), so it is compacted when it grows past twice the bound.
	private final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();

	private final AtomicInteger queued = new AtomicInteger();

	private final AtomicInteger size = new AtomicInteger();

	private final AtomicLong invalidations = new AtomicLong();

	NearCache(NearCacheSpec spec) {
		this.maxEntries = spec.maxEntries();
		this.ttlNanos = spec.ttl().toNanos();
	}

	/**
	 * @return the stored value (a {@code NullValue} for a cached null), or {@code null} when there is none valid
	 */
	@Nullable Object get(String key, long epoch) {
		Entry entry = this.entries.get(key);
		if (entry == null) {
			return null;
		}
		if (entry.epoch != epoch || System.nanoTime() - entry.storedNanos > this.ttlNanos) {
			remove(key, entry);
			return null;
		}
		return entry.value;
	}

	/** @return the count of invalidations so far, to take before a read from Redis */
	long stamp() {
		return this.invalidations.get();
	}

	/** Stores a value read from Redis unless an invalidation arrived since {@code stamp} was taken. */
	void put(String key, Object value, long stamp, long epoch) {
		Entry entry = new Entry(value, epoch, System.nanoTime());
		Entry previous = this.entries.put(key, entry);
		// Checked after the put: an invalidation between the check and the put would otherwise be lost.
		if (this.invalidations.get() != stamp) {
			this.entries.remove(key, entry);
			return;
		}
		if (previous == null) {
			this.order.add(key);
			if (this.queued.incrementAndGet() > 2 * this.maxEntries + 16) {
				compact();
			}
			if (this.size.incrementAndGet() > this.maxEntries) {
				evictOldest();
			}
		}
	}

	/** Drops one entry: an instance wrote or evicted it. */
	void invalidate(String key) {
		this.invalidations.incrementAndGet();
		Entry removed = this.entries.remove(key);
		if (removed != null) {
			this.size.decrementAndGet();
		}
	}

	/** Drops every entry. */
	void clear() {
		this.invalidations.incrementAndGet();
		for (String key : this.entries.keySet()) {
			invalidate(key);
		}
	}

	/** @return the entries held now, expired ones included until they are read or pushed out */
	int size() {
		return Math.max(0, this.size.get());
	}

	private void remove(String key, Entry entry) {
		if (this.entries.remove(key, entry)) {
			this.size.decrementAndGet();
		}
	}

	private void evictOldest() {
		while (this.size.get() > this.maxEntries) {
			String oldest = this.order.poll();
			if (oldest == null) {
				return;
			}
			this.queued.decrementAndGet();
			Entry removed = this.entries.remove(oldest);
			if (removed != null) {
				this.size.decrementAndGet();
			}
		}
	}

	/** Drops the keys of removed entries from the order, keeping the others in it (at its tail). */
	private void compact() {
		int steps = this.queued.get();
		for (int i = 0; i < steps; i++) {
			String key = this.order.poll();
			if (key == null) {
				return;
			}
			if (this.entries.containsKey(key)) {
				this.order.add(key);
			}
			else {
				this.queued.decrementAndGet();
			}
		}
	}

	private record Entry(Object value, long epoch, long storedNanos) {
	}

}

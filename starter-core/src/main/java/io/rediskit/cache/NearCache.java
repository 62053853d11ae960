package io.rediskit.cache;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
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
 * <p>
 * An entry read from Redis knows when it expires there ({@link Entry#expiresAtNanos()}); past that it is no longer
 * answered. With {@code keepStale} (the {@link OutagePolicy#SERVE_STALE} policy) entries that are no longer
 * answered (too old, stored before a loss of trust, past their expiry) stay until they are replaced, invalidated
 * or pushed out, for {@link #stale(String)} to serve while Redis is down.
 */
final class NearCache {

	/** The expiry of an entry whose expiry in Redis is not known: it lives the near cache's TTL. */
	static final long UNKNOWN_EXPIRY = Long.MIN_VALUE;

	private final int maxEntries;

	private final long ttlNanos;

	private final Map<String, Entry> entries = new ConcurrentHashMap<>();

	// Insertion order, for a bounded size: the oldest keys go first. May hold keys already removed (and a key
	// twice), so it is compacted when it grows past twice the bound.
	private final ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();

	private final AtomicInteger queued = new AtomicInteger();

	private final AtomicInteger size = new AtomicInteger();

	private final AtomicLong invalidations = new AtomicLong();

	private final boolean keepStale;

	NearCache(NearCacheSpec spec, boolean keepStale) {
		this.maxEntries = spec.maxEntries();
		this.ttlNanos = spec.ttl().toNanos();
		this.keepStale = keepStale;
	}

	/**
	 * @return the stored entry (its value a {@code NullValue} for a cached null), or {@code null} when there is
	 * none valid
	 */
	@Nullable Entry get(String key, long epoch) {
		Entry entry = this.entries.get(key);
		if (entry == null) {
			return null;
		}
		long now = System.nanoTime();
		if (entry.epoch != epoch || now - entry.storedNanos > this.ttlNanos || entry.leftMillis() <= 0) {
			if (!this.keepStale) {
				remove(key, entry);
			}
			return null;
		}
		return entry;
	}

	/** @return the value held for a key, however old, or {@code null}: only for a read Redis cannot answer */
	@Nullable Object stale(String key) {
		Entry entry = this.entries.get(key);
		return (entry != null) ? entry.value : null;
	}

	/** @return whether entries no longer answered are kept for {@link #stale(String)} */
	boolean keepsStale() {
		return this.keepStale;
	}

	/** @return the count of invalidations so far, to take before a read from Redis */
	long stamp() {
		return this.invalidations.get();
	}

	/**
	 * Stores a value read from Redis unless an invalidation arrived since {@code stamp} was taken.
	 * @param expiresAtNanos when the entry expires in Redis ({@link System#nanoTime()} scale), or
	 * {@link #UNKNOWN_EXPIRY}
	 */
	void put(String key, Object value, long stamp, long epoch, long expiresAtNanos) {
		Entry entry = new Entry(value, epoch, System.nanoTime(), expiresAtNanos);
		boolean[] added = new boolean[1];
		// The stamp is checked while the key is held, and an invalidation counts before it removes the key: so the
		// value is stored only before an invalidation removes the key (and is removed by it) or not at all. Checked
		// and then put apart, an invalidation could count and remove in between, its arrival be reported, and the
		// late value be served until a second check took it out (seen 2 times in 50,000 reads racing 1,000 writes).
		this.entries.compute(key, (name, previous) -> {
			if (this.invalidations.get() != stamp) {
				// A late value does not replace a current one either (another put stored after the invalidation).
				return previous;
			}
			added[0] = (previous == null);
			return entry;
		});
		if (added[0]) {
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

	/**
	 * One value in memory.
	 * @param value the value, a {@code NullValue} for a cached null
	 * @param epoch the subscription's epoch when it was read
	 * @param storedNanos when it was stored
	 * @param expiresAtNanos when it expires in Redis, or {@link #UNKNOWN_EXPIRY}
	 */
	record Entry(Object value, long epoch, long storedNanos, long expiresAtNanos) {

		/** @return the ms before it expires in Redis, {@code Long.MAX_VALUE} if not known */
		long leftMillis() {
			return (this.expiresAtNanos == UNKNOWN_EXPIRY) ? Long.MAX_VALUE
					: TimeUnit.NANOSECONDS.toMillis(this.expiresAtNanos - System.nanoTime());
		}

	}

}

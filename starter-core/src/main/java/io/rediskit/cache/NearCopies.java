package io.rediskit.cache;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.rediskit.cache.CacheMessages.Message;
import org.jspecify.annotations.Nullable;

/**
 * This instance's copies of one cache's entries (its {@link NearCache}, if the spec has one) and whether they may
 * be answered: where their invalidations come from (the server's tracking or the cache's channel), the epoch of
 * that source, the copies of this instance's own loads that the fill's message keeps rather than drops. Without a
 * near cache every method is a no-op and nothing is answered.
 */
final class NearCopies {

	/** How many own loads are remembered at most: beyond, their messages were lost and the copies are not needed. */
	private static final int MAX_OWN_LOADS = 1024;

	private final String name;

	private final @Nullable NearCacheSpec spec;

	private final CacheParts parts;

	private final String channelName;

	private final @Nullable NearCache near;

	/** The values this instance loaded and stored, by key, until the fill's message comes back: kept, not dropped. */
	private final ConcurrentHashMap<String, OwnLoad> ownLoads = new ConcurrentHashMap<>();

	/** @param channelName the cache's channel, whose subscription carries the invalidations under pub/sub */
	NearCopies(String name, String channelName, CacheSpec spec, CacheParts parts) {
		this.name = name;
		this.spec = spec.nearCache();
		this.parts = parts;
		this.channelName = channelName;
		this.near = (this.spec != null) ? new NearCache(this.spec, spec.outagePolicy() == OutagePolicy.SERVE_STALE)
				: null;
	}

	/**
	 * Routes the losses of trust and, where tracking runs, the server's invalidations to the near cache; before
	 * the cache's channel is subscribed, since trust can be lost as soon as the subscription exists.
	 */
	void watch(CacheSignals signals, @Nullable CacheTracking tracking) {
		if (this.near == null) {
			return;
		}
		// Under SERVE_STALE the copies stay, for outages only (an entry stored before the loss is never answered
		// while Redis is up).
		if (!this.near.keepsStale()) {
			signals.onTrustLost(() -> clearOf(Invalidations.PUBSUB));
			if (tracking != null) {
				tracking.onTrustLost(() -> clearOf(Invalidations.TRACKING));
			}
		}
		if (tracking != null && this.spec.invalidation() != NearCacheInvalidation.PUBSUB) {
			tracking.watch(this.name, this::onTracked);
		}
	}

	/** @return the entries in the near cache, 0 without one */
	int size() {
		return (this.near != null) ? this.near.size() : 0;
	}

	/** @return whether the near cache answers reads now: it exists and its invalidations arrive */
	boolean active() {
		return switch (invalidations()) {
			case TRACKING -> this.parts.tracking().trusted();
			case PUBSUB -> this.parts.signals().watching(this.channelName) && this.parts.signals().trusted();
			case NONE -> false;
		};
	}

	/** @return {@code tracking}, {@code pubsub} or {@code none}: see {@link RedisKitCache#nearCacheInvalidation()} */
	String mode() {
		return invalidations().name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Where the near cache's invalidations come from; a cache keeps the answer once the tracking connection was
	 * first made (tracking available or not), so an epoch is never compared across the two.
	 */
	private Invalidations invalidations() {
		if (this.near == null || this.parts.signals() == null) {
			return Invalidations.NONE;
		}
		NearCacheInvalidation mode = this.spec.invalidation();
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

	private void clearOf(Invalidations source) {
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

	/**
	 * A message on the cache's channel: drops the copy it names (every copy for a clear), or keeps this instance's
	 * own load. Under tracking the server's invalidations drop the copies, this instance's own writes' included.
	 */
	void onMessage(Message message) {
		if (this.near == null || invalidations() == Invalidations.TRACKING) {
			return;
		}
		if (message.type() == CacheMessages.CLEARED) {
			this.near.clear();
			this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
		}
		else if (!keepOwnLoad(message)) {
			this.near.invalidate(message.key());
			this.parts.listeners().notify((l) -> l.onNearInvalidation(this.name));
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
		if (own == null || !Arrays.equals(own.bytes(), message.payload())
				|| !this.ownLoads.remove(message.key(), own)) {
			return false;
		}
		this.near.invalidate(message.key());
		this.near.put(message.key(), own.value(), this.near.stamp(), own.epoch(), own.expiresAtNanos());
		return true;
	}

	/** @return the copy of an entry that may be answered now, or {@code null} */
	NearCache.@Nullable Entry get(String id) {
		if (this.near == null) {
			return null;
		}
		long epoch = epoch();
		if (!active()) {
			return null;
		}
		return this.near.get(id, epoch);
	}

	/** @return what a read from Redis takes before it is sent, to keep its reply as a copy if nothing changed */
	Snapshot snapshot() {
		if (this.near == null) {
			return Snapshot.NONE;
		}
		long epoch = epoch();
		long stamp = this.near.stamp();
		return new Snapshot(this.near, active(), stamp, epoch);
	}

	/**
	 * @return the last copy of an entry, however old, under {@link OutagePolicy#SERVE_STALE}, for a read Redis
	 * cannot answer
	 */
	@Nullable Object stale(String id) {
		if (this.near == null || !this.near.keepsStale()) {
			return null;
		}
		Object stale = this.near.stale(id);
		if (stale != null) {
			this.parts.listeners().notify((l) -> l.onHit(this.name, CacheTier.STALE));
		}
		return stale;
	}

	/** Drops the copy of an entry this instance writes or evicts. */
	void invalidate(String id) {
		if (this.near != null) {
			this.near.invalidate(id);
		}
	}

	/** Drops every copy. */
	void clear() {
		if (this.near != null) {
			this.near.clear();
		}
	}

	/**
	 * Before the fill of a value this instance loaded: remembers it, so that the fill's own message, which tells
	 * every instance to drop its copy, keeps this instance's instead.
	 * @param leftMillis the ms the stored entry has before its TTL ends
	 * @return the load to keep, or {@code null} without a near cache, while it is bypassed, or under tracking,
	 * whose invalidation of the fill's own write cannot be told from that of another write right after it (the
	 * server sends one for both when they fall in one round of its event loop)
	 */
	@Nullable OwnLoad remember(String id, Object stored, byte[] bytes, long leftMillis) {
		if (this.near == null || invalidations() != Invalidations.PUBSUB) {
			return null;
		}
		long epoch = epoch();
		long stamp = this.near.stamp();
		if (!active()) {
			return null;
		}
		// Before the fill is sent: the entry is taken to expire no later than it does in Redis.
		OwnLoad own = new OwnLoad(bytes, stored, epoch, stamp, expiresAt(leftMillis));
		if (this.ownLoads.size() >= MAX_OWN_LOADS) {
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
	void stored(String id, @Nullable OwnLoad own, boolean filled) {
		if (own == null) {
			return;
		}
		if (!filled) {
			this.ownLoads.remove(id, own);
			return;
		}
		this.near.put(id, own.value(), own.stamp(), own.epoch(), own.expiresAtNanos());
	}

	private long epoch() {
		return switch (invalidations()) {
			case TRACKING -> this.parts.tracking().epoch();
			case PUBSUB -> this.parts.signals().epoch();
			case NONE -> 0;
		};
	}

	private static long expiresAt(long leftMillis) {
		return (leftMillis == Long.MAX_VALUE) ? NearCache.UNKNOWN_EXPIRY
				: System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leftMillis);
	}

	/**
	 * The state of the near cache taken before a read from Redis is sent.
	 * @param near the near cache, or {@code null} without one
	 * @param active whether it answered reads then
	 * @param stamp its invalidation count then
	 * @param epoch the epoch of its invalidations then
	 */
	record Snapshot(@Nullable NearCache near, boolean active, long stamp, long epoch) {

		static final Snapshot NONE = new Snapshot(null, false, 0, 0);

		/**
		 * Keeps a value the read found as a copy, if the near cache was active and no invalidation came since.
		 * @param leftMillis the ms the entry has before its TTL ends ({@code Long.MAX_VALUE} if unknown)
		 */
		void keep(String id, Object value, long leftMillis) {
			if (this.active) {
				this.near.put(id, value, this.stamp, this.epoch, expiresAt(leftMillis));
			}
		}

	}

	/**
	 * A value this instance loaded and stored, kept in its near cache when the fill's message comes back.
	 * @param bytes the stored bytes, which the message carries
	 * @param value the value
	 * @param epoch the subscription's epoch before the fill
	 * @param stamp the near cache's invalidation count before the fill
	 * @param expiresAtNanos no later than the entry's expiry in Redis
	 */
	record OwnLoad(byte[] bytes, Object value, long epoch, long stamp, long expiresAtNanos) {
	}

}

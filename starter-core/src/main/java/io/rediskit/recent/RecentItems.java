package io.rediskit.recent;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Per-user "recently viewed" items with a global "trending" count. Thread-safe; every instance of the application
 * shares them.
 * <ul>
 * <li>{@link #view(String, String)}: one script call moves the item to the front of the user's list (a re-view
 * moves it, never duplicates it), drops the oldest past {@link RecentItemsSpec#capacity()}, keeps the list
 * {@link RecentItemsSpec#idleTtl()} after this view, and counts the view in the current trending bucket. View
 * times come from the server's clock.</li>
 * <li>{@link #recent(String, int)}: the user's items, newest first, one {@code ZRANGE}.</li>
 * <li>{@link #trending(int)}: the most viewed items of the last {@link RecentItemsSpec#trendingPeriod()}, counted
 * in buckets: the count covers the current bucket and the {@code trendingBuckets - 1} before it, so it slides in
 * bucket steps. The union of the buckets is computed by the server and reused for
 * {@link RecentItemsSpec#trendingCacheTtl()}. Buckets are chosen by the registry's clock: a clock a few seconds
 * off moves views of those seconds into the neighbouring bucket.</li>
 * </ul>
 * All keys of one list share its hash tag, so one list (every user of it) lives on one master of a Redis Cluster:
 * spread load by using several lists. A view replayed by the driver after a reconnect counts twice in trending.
 * An outage fails the call with Spring's {@code DataAccessException}, ends its observation as {@code error} and logs a throttled
 * warning.
 */
public interface RecentItems {

	/** @return the list's name */
	String name();

	/** @return its spec */
	RecentItemsSpec spec();

	/**
	 * Records that a user viewed an item.
	 * @param user who viewed
	 * @param item what
	 * @return the item's views in the current trending bucket, this one included
	 */
	long view(String user, String item);

	/**
	 * A user's recent items.
	 * @param user the user
	 * @param count how many at most, from 1 to the capacity
	 * @return the items, newest first; empty for a user unseen for the idle TTL
	 */
	List<String> recent(String user, int count);

	/**
	 * The most viewed items of the trending period.
	 * @param count how many at most, from 1 to 1 000
	 * @return the items with their views, most viewed first (equal views: the greater item, by its bytes, first)
	 */
	List<TrendingItem> trending(int count);

	/**
	 * Forgets a user's recent items.
	 * @param user the user
	 */
	void forget(String user);

	/**
	 * {@link #view} without blocking.
	 * @param user who viewed
	 * @param item what
	 * @return the item's views in the current bucket
	 */
	CompletionStage<Long> viewAsync(String user, String item);

	/**
	 * {@link #recent} without blocking; an invalid count throws at once.
	 * @param user the user
	 * @param count how many at most
	 * @return the items, newest first
	 */
	CompletionStage<List<String>> recentAsync(String user, int count);

	/**
	 * {@link #trending} without blocking; an invalid count throws at once.
	 * @param count how many at most
	 * @return the items with their views
	 */
	CompletionStage<List<TrendingItem>> trendingAsync(int count);

	/**
	 * {@link #forget} without blocking.
	 * @param user the user
	 * @return completed when forgotten
	 */
	CompletionStage<Void> forgetAsync(String user);

}

package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * A named Bloom filter in Redis: "seen before?" in constant space, with no false negatives and false positives
 * at about the {@link BloomFilterSpec#falsePositiveRate() configured rate} while it holds at most its
 * {@link BloomFilterSpec#expectedInsertions() expected insertions}; with a {@link BloomFilterSpec#growth() growth},
 * at any size up to its last layer's capacity (it adds layers, checked together by one script per call, and
 * throws {@link BloomFilterFullException} past the last). Items cannot be removed. Thread-safe; every instance of the
 * application shares the filter.
 * <p>
 * Each call is one round trip: one item, or a batch of any size ({@code addAll}, {@code mightContainAll}) in one
 * command per shard it touches (filters up to 2<sup>32</sup> bits have one shard). In bitmap mode an add is one
 * script whose {@code BITFIELD ... SET u1} replies tell whether the item was new, and a lookup one
 * {@code BITFIELD_RO ... GET u1}, which a replica may serve.
 * <p>
 * Items are bytes: a {@code String} is its UTF-8 encoding, so {@code add("é")} and
 * {@code add("é".getBytes(UTF_8))} are the same item. Any length is accepted, the empty item included.
 * <p>
 * A filter lost in Redis (a restart without persistence, a {@code FLUSHDB}, a failover that dropped its key, an
 * eviction, its ttl) reads as empty, and the next add creates it again holding that add's items only: a
 * {@link #mightContain(String) mightContain} of {@code false} then means nothing about whether the item exists.
 * Code that acts on "never seen" as "does not exist" asks {@link #check(String)} instead, which trusts it only from
 * a filter that is {@link #isComplete() complete}: {@link #seed(Iterable) seeded} with every item there is, and not
 * lost or recreated since. A filter whose registry has a {@link BloomFilterSeed} for it is seeded again by itself
 * when a check finds it not complete.
 * <p>
 * An outage (Redis down, too slow, read-only after a failover) fails the call with Spring's
 * {@code DataAccessException}, ends its observation as {@code error} and logs a throttled warning: a filter cannot
 * guess. A filter stored with other sizing fails with {@link BloomFilterSizingException}.
 */
public interface BloomFilter {

	/** @return the filter's name */
	String name();

	/** @return its sizing */
	BloomFilterSpec spec();

	/**
	 * Adds an item.
	 * @param item the item, as UTF-8
	 * @return whether it was new: {@code false} if it, or items covering all of its bits, had been added
	 */
	default boolean add(String item) {
		return add(utf8(item));
	}

	/**
	 * Adds an item.
	 * @param item the item's bytes
	 * @return whether it was new
	 */
	default boolean add(byte[] item) {
		return addAllBytes(List.of(item)).get(0);
	}

	/**
	 * Adds items in one round trip.
	 * @param items the items, as UTF-8
	 * @return per item, in order, whether it was new (a repeated item is new only the first time)
	 */
	default List<Boolean> addAll(Collection<String> items) {
		return addAllBytes(utf8(items));
	}

	/**
	 * Adds items in one round trip.
	 * @param items the items' bytes
	 * @return per item, in order, whether it was new
	 */
	List<Boolean> addAllBytes(Collection<byte[]> items);

	/**
	 * Looks an item up.
	 * @param item the item, as UTF-8
	 * @return {@code false} if it was never added; {@code true} if it was, or (at about the configured rate)
	 * if it was not
	 */
	default boolean mightContain(String item) {
		return mightContain(utf8(item));
	}

	/**
	 * Looks an item up.
	 * @param item the item's bytes
	 * @return {@code false} if it was never added
	 */
	default boolean mightContain(byte[] item) {
		return mightContainAllBytes(List.of(item)).get(0);
	}

	/**
	 * Looks items up in one round trip.
	 * @param items the items, as UTF-8
	 * @return per item, in order, whether it might have been added
	 */
	default List<Boolean> mightContainAll(Collection<String> items) {
		return mightContainAllBytes(utf8(items));
	}

	/**
	 * Looks items up in one round trip.
	 * @param items the items' bytes
	 * @return per item, in order, whether it might have been added
	 */
	List<Boolean> mightContainAllBytes(Collection<byte[]> items);

	/**
	 * Looks an item up, and tells whether its "never seen" may be trusted: in one round trip, the lookup and the
	 * filter's completeness mark (of the item's shard, for a filter of several).
	 * @param item the item, as UTF-8
	 * @return {@link BloomAnswer#SEEN}, {@link BloomAnswer#NEVER_SEEN} from a complete filter, or
	 * {@link BloomAnswer#NOT_COMPLETE} when the filter never saw it but is not complete (then the registry seeds it
	 * again, in the background, if it has a {@link BloomFilterSeed} for it)
	 */
	default BloomAnswer check(String item) {
		return Stages.join(checkAsync(utf8(item)));
	}

	/**
	 * {@link #check(String)} without blocking.
	 * @param item the item, as UTF-8
	 * @return the answer, completed on the driver's thread
	 */
	default CompletionStage<BloomAnswer> checkAsync(String item) {
		return checkAsync(utf8(item));
	}

	/**
	 * {@link #check(String)} of an item's bytes, without blocking.
	 * @param item the item's bytes
	 * @return the answer; exceptionally as {@link #mightContainAsync(String)} completes
	 */
	CompletionStage<BloomAnswer> checkAsync(byte[] item);

	/**
	 * Seeds the filter with every item there is and marks it complete: creates it if absent, marks that a seeding
	 * began, adds the items in batches, then marks it complete unless it was lost or created anew meanwhile. Items
	 * added by others while it runs are kept. Blocks while it reads {@code ids} and adds them: call it at startup,
	 * or let the registry do it from a {@link BloomFilterSeed}. Without a lock around it, two instances seeding at
	 * once both add everything; the result is the same.
	 * @param ids every item the filter must hold, as UTF-8, iterated once
	 * @return whether the filter is now complete; {@code false} if it was lost or recreated while seeding (seed
	 * again)
	 */
	boolean seed(Iterable<String> ids);

	/**
	 * Whether the filter is complete now: seeded, and not lost or recreated since. One round trip per shard.
	 * @return whether a "never seen" from it may be trusted
	 */
	boolean isComplete();

	/**
	 * {@link #add(String)} without blocking.
	 * @param item the item
	 * @return whether it was new, completed on the driver's thread
	 */
	default CompletionStage<Boolean> addAsync(String item) {
		return addAllBytesAsync(List.of(utf8(item))).thenApply((added) -> added.get(0));
	}

	/**
	 * {@link #addAll(Collection)} without blocking.
	 * @param items the items
	 * @return per item whether it was new
	 */
	default CompletionStage<List<Boolean>> addAllAsync(Collection<String> items) {
		return addAllBytesAsync(utf8(items));
	}

	/**
	 * {@link #addAllBytes(Collection)} without blocking.
	 * @param items the items' bytes
	 * @return per item whether it was new; exceptionally as the sync call throws
	 */
	CompletionStage<List<Boolean>> addAllBytesAsync(Collection<byte[]> items);

	/**
	 * {@link #mightContain(String)} without blocking.
	 * @param item the item
	 * @return whether it might have been added
	 */
	default CompletionStage<Boolean> mightContainAsync(String item) {
		return mightContainAllBytesAsync(List.of(utf8(item))).thenApply((found) -> found.get(0));
	}

	/**
	 * {@link #mightContainAll(Collection)} without blocking.
	 * @param items the items
	 * @return per item whether it might have been added
	 */
	default CompletionStage<List<Boolean>> mightContainAllAsync(Collection<String> items) {
		return mightContainAllBytesAsync(utf8(items));
	}

	/**
	 * {@link #mightContainAllBytes(Collection)} without blocking.
	 * @param items the items' bytes
	 * @return per item whether it might have been added; exceptionally as the sync call throws
	 */
	CompletionStage<List<Boolean>> mightContainAllBytesAsync(Collection<byte[]> items);

	/**
	 * Reads the filter's state: one {@code BITCOUNT} per shard (or {@code BF.INFO}). A report for operators,
	 * with no asynchronous form: it makes several round trips in turn, so call it from a thread that may wait.
	 * @return bits, hashes, approximate items, fill ratio and the estimated false-positive rate now
	 */
	BloomFilterInfo info();

	/** Deletes the filter's keys: it starts over empty, and may then be created with other sizing. */
	void delete();

	/**
	 * {@link #delete()} without blocking.
	 * @return completed when every shard is deleted
	 */
	CompletionStage<@Nullable Void> deleteAsync();

	private static byte[] utf8(String item) {
		return item.getBytes(StandardCharsets.UTF_8);
	}

	private static List<byte[]> utf8(Collection<String> items) {
		return items.stream().map(BloomFilter::utf8).toList();
	}

}

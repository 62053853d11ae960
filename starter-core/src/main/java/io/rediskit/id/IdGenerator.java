package io.rediskit.id;

import java.util.concurrent.CompletionStage;

/**
 * A cluster-wide generator of unique ids: positive {@code long}s, handed out from blocks that each instance (each
 * handle) reserves in Redis with one {@code INCRBY} of the block size, so one round trip serves
 * {@link IdGeneratorSpec#blockSize()} ids. Thread-safe.
 * <ul>
 * <li><b>Unique</b> across threads, handles, instances and restarts: every block is a range no other
 * {@code INCRBY} of the counter returned.</li>
 * <li><b>Increasing per handle</b>, not across instances: two instances interleave their blocks, so ids are not
 * in creation order across instances, and not dense.</li>
 * <li><b>Gaps</b>: the unused rest of a block is lost when its handle goes away (an instance stops, or the
 * configuration changes), and a block reserved by an {@code INCRBY} the driver replays after a reconnect is never
 * used. Never derive counts from ids.</li>
 * <li><b>Limits</b>: the counter key ({@code <prefix>id:{<name>}}) has no TTL, and deleting it restarts the
 * numbers at 1, so duplicates follow. A failover on Redis Cluster or Sentinel can lose the last increments
 * (replication is asynchronous) and hand out their blocks again: where that matters, start a new generator's
 * numbers above the old ones after a failover ({@code INCRBY} it by a margin) or use the ids with a fencing
 * check.</li>
 * </ul>
 * An outage fails the call with Spring's {@code DataAccessException}, ends its observation as {@code error} and logs a throttled
 * warning; ids left in the current block are still handed out meanwhile.
 */
public interface IdGenerator {

	/** @return the generator's name */
	String name();

	/** @return its spec */
	IdGeneratorSpec spec();

	/** @return the next id: from the current block, or the first of a new block reserved in one round trip */
	long next();

	/** @return {@link #next()} without blocking: completed at once while the current block lasts */
	CompletionStage<Long> nextAsync();

	/**
	 * Reads how far the generator's counter in Redis has gone: the last id of the last block any instance reserved
	 * (one {@code GET}, which reserves nothing). Every id handed out so far is at most this; ids of blocks reserved
	 * but not used up are gaps.
	 * @return the last id reserved, {@code 0} when none was
	 */
	long reserved();

	/** @return {@link #reserved()} without blocking */
	CompletionStage<Long> reservedAsync();

}

package io.rediskit.queue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where a batch stands, as Redis counts it: a member counts once, when it is acknowledged (succeeded) or fails for
 * good (dead-lettered or cancelled); retries do not count. From {@link RedisQueue#batchProgress(String)}; kept for
 * a day after the batch finished.
 *
 * @param batchId the batch id
 * @param total its members
 * @param succeeded members acknowledged
 * @param failed members that failed for good
 * @param createdAt when it was enqueued, on the server's clock
 * @param finishedAt when its last member finished, or {@code null} while some are pending
 */
public record BatchProgress(String batchId, long total, long succeeded, long failed, Instant createdAt,
		@Nullable Instant finishedAt) {

	/** @return members not finished yet */
	public long pending() {
		return this.total - this.succeeded - this.failed;
	}

	/** @return whether every member finished */
	public boolean finished() {
		return this.finishedAt != null;
	}

}

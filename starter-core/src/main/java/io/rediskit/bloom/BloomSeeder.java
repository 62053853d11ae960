package io.rediskit.bloom;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Seeds one filter from its {@link BloomFilterSeed} when asked: at most one seeding at a time in this instance (a
 * request while one runs gets that one), and, with a lock registry, one across instances: under the lock
 * {@code bloom-seed:<filter>}, the filter is seeded only if it is still not complete, so instances that all saw the
 * loss seed it once. An instance waiting for the lock while another seeds holds no thread (the lock's asynchronous
 * acquisition); once it holds the lock it seeds only if the filter is still not complete (the other seeding failed,
 * or the filter was lost again since). A seeding that failed (Redis, or the seed's source) is not started again for
 * {@link #RETRY_AFTER}, so that checks of a filter whose source is down do not call that source on every lookup.
 */
final class BloomSeeder {

	/** The lock group: the lock of a filter is {@code bloom-seed:<name>}. */
	static final String LOCK_GROUP = "bloom-seed";

	/** How long an instance waits, holding no thread, for another one seeding the filter (then finds it complete). */
	static final Duration LOCK_WAIT = Duration.ofMinutes(10);

	/** Seedings of one request: a filter lost again while seeded is seeded again, up to this many times. */
	static final int ATTEMPTS = 3;

	/** How long after a failed seeding requests are answered with that failure. */
	static final Duration RETRY_AFTER = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(BloomSeeder.class);

	private final BloomFilterSeed seed;

	private final ThrottledLog failures;

	private final AtomicReference<@Nullable CompletableFuture<Boolean>> running = new AtomicReference<>();

	// System.nanoTime() before which no seeding starts again after a failure; 0 for none.
	private final AtomicLong failedUntil = new AtomicLong();

	BloomSeeder(BloomFilterSeed seed) {
		this.seed = seed;
		this.failures = new ThrottledLog(logger, RETRY_AFTER, "Bloom filter '" + seed.filter()
				+ "' could not be seeded from its BloomFilterSeed; it stays not complete (the loaders it guards run) and"
				+ " is seeded again on a check after " + RETRY_AFTER.toSeconds() + "s");
	}

	BloomFilterSeed seed() {
		return this.seed;
	}

	/**
	 * Starts a seeding unless one runs; returns at once.
	 * @return whether the filter is complete at the end; exceptionally with the seeding's failure
	 */
	CompletionStage<Boolean> request(BloomFilter filter, @Nullable LockRegistry locks, Executor executor) {
		CompletableFuture<Boolean> current = this.running.get();
		if (current != null) {
			return current;
		}
		long until = this.failedUntil.get();
		if (until != 0 && System.nanoTime() - until < 0) {
			return CompletableFuture.completedFuture(false);
		}
		CompletableFuture<Boolean> mine = new CompletableFuture<>();
		if (!this.running.compareAndSet(null, mine)) {
			return this.running.get();
		}
		try {
			seeding(filter, locks, executor).whenComplete((complete, failure) -> {
				if (failure == null) {
					this.running.set(null);
					mine.complete(complete);
				}
				else {
					Throwable cause = Stages.unwrap(failure);
					this.failedUntil.set(System.nanoTime() + RETRY_AFTER.toNanos());
					this.running.set(null);
					this.failures.warn(cause);
					mine.completeExceptionally(cause);
				}
			});
		}
		catch (RuntimeException ex) {
			this.running.set(null);
			mine.completeExceptionally(ex);
		}
		return mine;
	}

	/**
	 * Under the lock when there are locks. The wait for it holds no thread: its attempts are asynchronous calls, and
	 * between them it waits on the lock registry's scheduler for the holder's release (or its lease's end), so an
	 * instance waiting while another seeds for minutes parks none of the executor's threads. Only the seeding itself,
	 * which reads the source and waits for its adds, runs on the executor, and releases the lock there.
	 */
	private CompletionStage<Boolean> seeding(BloomFilter filter, @Nullable LockRegistry locks, Executor executor) {
		if (locks == null) {
			return onExecutor(executor, () -> seedUnlessComplete(filter), null);
		}
		RedisLock lock = locks.getLock(LOCK_GROUP, filter.name());
		return lock.acquireAsync(LOCK_WAIT, null)
			.exceptionallyCompose((failure) -> CompletableFuture.failedFuture(
					(Stages.unwrap(failure) instanceof LockNotAcquiredException) ? new IllegalStateException(
							"another instance held the lock " + lock.name() + " for more than " + LOCK_WAIT.toMinutes()
									+ " minutes") : failure))
			.thenCompose((lease) -> onExecutor(executor, () -> {
				try (Lease held = lease) {
					return seedUnlessComplete(filter);
				}
			}, lease));
	}

	/** Runs blocking work on the executor; a lease it was to release is released should the executor refuse it. */
	private static CompletionStage<Boolean> onExecutor(Executor executor, Supplier<Boolean> work,
			@Nullable Lease lease) {
		CompletableFuture<Boolean> done = new CompletableFuture<>();
		try {
			executor.execute(() -> {
				try {
					done.complete(work.get());
				}
				catch (Throwable ex) {
					done.completeExceptionally(ex);
				}
			});
		}
		catch (RuntimeException ex) {
			if (lease != null) {
				lease.releaseAsync();
			}
			done.completeExceptionally(ex);
		}
		return done;
	}

	/** Another instance may have seeded it while this one waited for the lock: then it is complete already. */
	private boolean seedUnlessComplete(BloomFilter filter) {
		for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
			if (filter.isComplete()) {
				return true;
			}
			long started = System.nanoTime();
			if (filter.seed(this.seed.ids())) {
				logger.info("Bloom filter '" + filter.name() + "' seeded from its BloomFilterSeed in "
						+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms: it is complete");
				return true;
			}
		}
		logger.warn("Bloom filter '" + filter.name() + "' was lost or created anew each of the " + ATTEMPTS
				+ " times it was seeded; it stays not complete (the loaders it guards run) until a later check seeds it");
		return false;
	}

}

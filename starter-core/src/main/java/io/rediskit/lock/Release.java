package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import io.micrometer.observation.Observation;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

/**
 * One release of one hold, whatever the engine: the release state machine, out of the handle. A lost hold fails
 * at once with {@link LockLeaseLostException} (the engine frees what it may still hold); otherwise the hold is
 * marked as releasing, so that the watchdog leaves it alone, and the {@link Engine} releases it. Its answer then
 * counts the hold down, forgets it (which ends its observation as released), or marks it lost; a release whose outcome is unknown
 * gives the hold up (nobody renews it any more, its lease ends it, never a renewed orphan) and reports the
 * failure when Redis was unavailable.
 * <p>
 * The object is the continuation of the engine's call ({@link #apply}), so that a release allocates no more than
 * the callback it needs anyway.
 */
class Release implements BiFunction<@Nullable Long, @Nullable Throwable, @Nullable Void> {

	private final LockHold hold;

	private final LockParts parts;

	Release(LockHold hold) {
		this.hold = hold;
		this.parts = hold.lock.parts();
	}

	/**
	 * Releases without waiting.
	 * @return completed when Redis confirmed the release; exceptionally with {@link LockLeaseLostException} when
	 * the hold was lost before, or with the failure of the call
	 */
	CompletionStage<@Nullable Void> start() {
		if (this.hold.isLost()) {
			this.parts.engine().releaseLost(this.hold);
			return CompletableFuture.failedFuture(lost());
		}
		return send().handle(this);
	}

	/** Marks the hold as releasing and sends its release, the hold in scope. */
	private CompletionStage<Long> send() {
		this.hold.releaseStarted();
		// The hold in scope while its release is sent: the driver's command span is the hold's child.
		try (Observation.Scope scope = this.hold.openObservationScope()) {
			return call(this.hold);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * The release call; a lock of the family whose release is another script (a scheduled job's end) overrides it.
	 * @return as {@link Engine#release}
	 */
	CompletionStage<Long> call(LockHold hold) {
		return this.parts.engine().release(hold);
	}

	/**
	 * Releases and waits for the outcome, whether or not the thread was interrupted before. The answer is applied
	 * on the calling thread, which waits for it anyway, rather than on the driver's: the driver's one I/O thread
	 * serves every caller, and a stage would cost the caller two objects more.
	 */
	void await() {
		Stages.uninterruptibly(this::awaitOnThisThread);
	}

	private @Nullable Void awaitOnThisThread() {
		if (this.hold.isLost()) {
			this.parts.engine().releaseLost(this.hold);
			throw lost();
		}
		CompletionStage<Long> call = send();
		Long left;
		try {
			// The operation's name is a constant: an engine names the lock only in the exception it may throw.
			left = this.parts.engine().await(call, "release", this.hold.lock);
		}
		catch (RuntimeException ex) {
			if (!call.toCompletableFuture().isDone()) {
				// The engine gave up waiting (a Redlock's bound): the answer, when it comes, settles the hold.
				call.handle(this);
				throw ex;
			}
			throw failed(ex);
		}
		return apply(left, null);
	}

	/**
	 * Applies the engine's answer.
	 * @param left the holds left, {@code 0} when the lock is free, {@code -1} when the owner no longer held it
	 */
	@Override
	public @Nullable Void apply(@Nullable Long left, @Nullable Throwable failure) {
		if (failure != null || left == null) {
			throw failed(failure);
		}
		if (left > 0) {
			this.hold.releasedOne();
			return null;
		}
		if (left == 0) {
			// Forgetting the hold ends its observation as released: the hold's timing is that observation's.
			this.parts.holds().forget(this.hold);
			return null;
		}
		this.parts.holds().markLost(this.hold);
		throw lost();
	}

	private RuntimeException failed(@Nullable Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (cause == null) {
			cause = new IllegalStateException("No reply to the release of '" + this.hold.lock.name() + "'");
		}
		this.hold.endObservation("error", cause);
		this.parts.holds().forget(this.hold);
		if (RedisFailures.isUnavailable(cause)) {
			this.parts.outages().warn(cause);
			String group = this.hold.lock.group();
			this.parts.listeners().notify((listener) -> listener.onReleaseFailed(group));
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	private LockLeaseLostException lost() {
		if (this.hold.countDownLost() <= 0) {
			this.parts.holds().forget(this.hold);
		}
		return new LockLeaseLostException(this.hold.lock.name(), this.hold.fencingToken);
	}

	/** A {@link Lease}: a hold owned by no thread, released once, from any thread. */
	static final class Handle implements Lease {

		private final LockHold hold;

		private boolean closed;

		Handle(LockHold hold) {
			this.hold = hold;
		}

		@Override
		public String lockName() {
			return this.hold.lock.name();
		}

		@Override
		public long fencingToken() {
			return this.hold.fencingToken;
		}

		@Override
		public boolean isActive() {
			synchronized (this) {
				return !this.closed && !this.hold.isLost();
			}
		}

		@Override
		public Duration certainValidity() {
			synchronized (this) {
				if (this.closed) {
					return Duration.ZERO;
				}
			}
			return Duration.ofNanos(Math.max(0, this.hold.certainNanos(System.nanoTime())));
		}

		@Override
		public void close() {
			if (markClosed()) {
				new Release(this.hold).await();
			}
		}

		@Override
		public CompletionStage<@Nullable Void> releaseAsync() {
			return markClosed() ? new Release(this.hold).start() : CompletableFuture.completedFuture(null);
		}

		private synchronized boolean markClosed() {
			if (this.closed) {
				return false;
			}
			this.closed = true;
			return true;
		}

		@Override
		public String toString() {
			return "Lease[" + this.hold.lock.name() + ", token " + this.hold.fencingToken + "]";
		}

	}

}

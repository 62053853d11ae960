package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.ReleaseSignals;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a {@link Lease} on the single-node lock that blocks no thread: a {@link SignalledWait} whose
 * attempt is the lock's acquire script, sleeping at most the spec's poll interval. An asynchronous waiter is not
 * handed the lock by a local release (only blocked threads are); it tries again when woken. The lock keeps no
 * place for a waiter, so a wait that ends without the lock gives back only an attempt that took it after a
 * cancellation or whose outcome is unknown: {@code undo} releases it to the next waiter.
 */
final class AsyncAcquisition extends SignalledWait {

	private final SingleNodeEngine engine;

	AsyncAcquisition(RedisLock lock, SingleNodeEngine engine, String owner, @Nullable Long leaseMillis,
			Duration waitTime, long waitNanos) {
		super(lock, owner, leaseMillis, waitTime, waitNanos);
		this.engine = engine;
	}

	@Override
	CompletionStage<LockScripts.Attempt> attempt(String requestId) {
		return this.engine.scripts.acquireAsync(this.lock.keys(), this.owner, this.leaseMillis, requestId);
	}

	@Override
	@Nullable CompletionStage<?> giveBack(@Nullable String requestId) {
		if (requestId == null) {
			return null;
		}
		return this.engine.scripts.undo(this.lock.keys(), this.owner, this.leaseMillis, requestId);
	}

	@Override
	long maxSleepNanos() {
		return this.engine.spec.maxPollInterval().toNanos();
	}

	@Override
	ReleaseSignals signals() {
		return this.engine.signals;
	}

}

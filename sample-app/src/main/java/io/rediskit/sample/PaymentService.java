package io.rediskit.sample;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * Pays orders at most once, however many requests arrive at the same time on however many instances.
 */
@Service
public class PaymentService {

	private final Orders orders;

	private final LockRegistry lockRegistry;

	private final Executor executor;

	PaymentService(Orders orders, LockRegistry lockRegistry,
			@Qualifier("applicationTaskExecutor") Executor executor) {
		this.orders = orders;
		this.lockRegistry = lockRegistry;
		this.executor = executor;
	}

	/**
	 * Declarative: the lock {@code orders:<orderId>} is held while the method runs. A second request for the
	 * same order while the first is paying gets {@code LockNotAcquiredException}, which the starter turns into
	 * HTTP 409.
	 * @param orderId the order, straight from the URL: the key expression treats it as data
	 * @return what happened
	 */
	@DistributedLock(name = "orders", key = "#orderId", waitTime = "0s")
	public PaymentOutcome pay(String orderId) {
		if (this.orders.isPaid(orderId)) {
			return new PaymentOutcome(orderId, "ALREADY_PAID", this.orders.charges(orderId), 0);
		}
		this.orders.charge(orderId);
		return new PaymentOutcome(orderId, "PAID", this.orders.charges(orderId), 0);
	}

	/**
	 * Programmatic: a lease owned by no thread, and a write fenced by its token.
	 * @param orderId the order
	 * @return what happened
	 */
	public PaymentOutcome payProgrammatically(String orderId) {
		RedisLock lock = this.lockRegistry.getLock("orders", orderId);
		try (Lease lease = lock.acquire(Duration.ZERO)) {
			return chargeFenced(orderId, lease.fencingToken());
		}
	}

	/**
	 * Asynchronous: no thread waits for the lock. The lease comes on the driver's thread; the payment, which
	 * makes blocking Redis calls, moves to the application's task executor, and the lease is released with
	 * {@code releaseAsync()}, also when the payment fails. A busy lock for more than a second completes the stage
	 * with {@code LockNotAcquiredException}, which the starter answers with 409.
	 * @param orderId the order
	 * @return what happened, when it has happened
	 */
	public CompletionStage<PaymentOutcome> payAsync(String orderId) {
		return this.lockRegistry.getLock("orders", orderId)
			.acquireAsync(Duration.ofSeconds(1))
			.thenComposeAsync((lease) -> {
				PaymentOutcome outcome;
				try {
					outcome = chargeFenced(orderId, lease.fencingToken());
				}
				catch (RuntimeException ex) {
					return lease.releaseAsync().thenCompose((released) -> CompletableFuture.failedFuture(ex));
				}
				return lease.releaseAsync().thenApply((released) -> outcome);
			}, this.executor);
	}

	private PaymentOutcome chargeFenced(String orderId, long fencingToken) {
		if (this.orders.isPaid(orderId)) {
			return new PaymentOutcome(orderId, "ALREADY_PAID", this.orders.charges(orderId), fencingToken);
		}
		String outcome = this.orders.chargeFenced(orderId, fencingToken) ? "PAID" : "REJECTED_STALE";
		return new PaymentOutcome(orderId, outcome, this.orders.charges(orderId), fencingToken);
	}

}

package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.RedisLock;
import io.rediskit.lock.LockRegistry;

import org.springframework.stereotype.Service;

/**
 * Pays orders at most once, however many requests arrive at the same time on however many instances.
 */
@Service
public class PaymentService {

	private final Orders orders;

	private final LockRegistry lockRegistry;

	PaymentService(Orders orders, LockRegistry lockRegistry) {
		this.orders = orders;
		this.lockRegistry = lockRegistry;
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
		try (RedisLock.Lease lease = lock.acquire(Duration.ZERO)) {
			if (this.orders.isPaid(orderId)) {
				return new PaymentOutcome(orderId, "ALREADY_PAID", this.orders.charges(orderId), lease.fencingToken());
			}
			String outcome = this.orders.chargeFenced(orderId, lease.fencingToken()) ? "PAID" : "REJECTED_STALE";
			return new PaymentOutcome(orderId, outcome, this.orders.charges(orderId), lease.fencingToken());
		}
	}

}

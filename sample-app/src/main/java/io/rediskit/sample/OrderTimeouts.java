package io.rediskit.sample;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.RedisFailures;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Cancels an order that is not paid within {@code sample.unpaid-timeout}: placing it schedules a delayed job on
 * the {@code order-timeouts} queue, paying cancels the job, and the listener cancels the order if the job comes
 * due first. The job's id is the order's, so placing an order twice schedules one job. The placing request's trace
 * id travels with the job as a header, so the cancellation can be traced back to it.
 */
@Component
public class OrderTimeouts {

	/** The job: cancel this order unless it was paid. */
	public record CancelUnpaid(String orderId) {
	}

	private final RedisQueue<CancelUnpaid> timeouts;

	private final Orders orders;

	private final StringRedisTemplate redis;

	private final Duration unpaidTimeout;

	OrderTimeouts(QueueRegistry queues, Orders orders, StringRedisTemplate redis,
			@Value("${sample.unpaid-timeout:30s}") Duration unpaidTimeout) {
		this.timeouts = queues.get("order-timeouts", CancelUnpaid.class);
		this.orders = orders;
		this.redis = redis;
		this.unpaidTimeout = unpaidTimeout;
	}

	/**
	 * @param traceId the placing request's trace id, or {@code null} for a new one
	 * @return the job's id and when it is due
	 */
	Map<String, Object> placed(String orderId, @Nullable String traceId) {
		this.redis.opsForHash().putIfAbsent(key(orderId), "status", "PLACED");
		String trace = (traceId != null && !traceId.isBlank()) ? traceId : UUID.randomUUID().toString();
		String job = this.timeouts.enqueue(QueueEntry.of(new CancelUnpaid(orderId)).withId(jobId(orderId))
			.withDelay(this.unpaidTimeout)
			.withHeader("trace-id", trace));
		return Map.of("order", orderId, "cancellationJob", job, "cancelledIfUnpaidAfter", this.unpaidTimeout.toString());
	}

	/** @return whether a pending cancellation was removed */
	boolean paid(String orderId) {
		try {
			return this.timeouts.cancel(jobId(orderId));
		}
		catch (DataAccessException ex) {
			if (!RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			// The payment stands: the job, when it comes due, finds the order paid and leaves it alone.
			return false;
		}
	}

	String status(String orderId) {
		Object status = this.redis.opsForHash().get(key(orderId), "status");
		return (status != null) ? status.toString() : "UNKNOWN";
	}

	/** @return the trace id of the request whose job cancelled the order, or {@code ""} */
	String cancelledBy(String orderId) {
		Object trace = this.redis.opsForHash().get(key(orderId), "cancelled-by");
		return (trace != null) ? trace.toString() : "";
	}

	@QueueListener(queue = "order-timeouts", concurrency = "2")
	void cancelUnpaid(CancelUnpaid job, Map<String, String> headers) {
		// At least once: idempotent, and a payment that won the race keeps the order paid.
		if (!this.orders.isPaid(job.orderId())) {
			this.redis.opsForHash()
				.putAll(key(job.orderId()), Map.of("status", "CANCELLED", "cancelled-by",
						headers.getOrDefault("trace-id", "")));
		}
	}

	private static String jobId(String orderId) {
		return "unpaid-" + orderId;
	}

	private static String key(String orderId) {
		return "sample:order:" + orderId;
	}

}

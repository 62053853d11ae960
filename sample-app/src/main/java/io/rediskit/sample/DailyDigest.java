package io.rediskit.sample;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.queue.QueueListener;
import io.rediskit.queue.RecurringSlot;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * A recurring job on the delay queue: {@code redis-kit.queue.recurring.daily-digest} enqueues one message per
 * cron slot (every 10 s in the sample, so that it is seen) into the {@code digests} queue, once across every
 * instance of the sample, and this listener builds the digest of that slot with the queue's retries and dead
 * letters. The next slot shows at {@code /actuator/rediskitqueue}; slots enqueued and skipped at
 * {@code /actuator/metrics/rediskit.queue.recurring.enqueued}.
 */
@Component
public class DailyDigest {

	private static final Log logger = LogFactory.getLog(DailyDigest.class);

	private final AtomicLong runs = new AtomicLong();

	private final AtomicReference<@Nullable Instant> lastSlot = new AtomicReference<>();

	/**
	 * Builds the digest of one slot. The slot, not the clock, says which period it covers, so a redelivery or a
	 * late run builds the same digest.
	 * @param slot the job and its slot
	 */
	@QueueListener(queue = "digests")
	public void build(RecurringSlot slot) {
		this.lastSlot.set(slot.slot());
		logger.info("Digest #" + this.runs.incrementAndGet() + " for the slot of " + slot.slot()
				+ " built on this instance");
	}

	/** @return how many digests this instance built */
	public long runs() {
		return this.runs.get();
	}

	/** @return the slot of the last digest this instance built, or {@code null} */
	public @Nullable Instant lastSlot() {
		return this.lastSlot.get();
	}

}

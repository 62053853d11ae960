package io.rediskit.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * How one queue delivers: visibility, delivery limit, retry backoff, dead-letter bounds, payload size, the
 * fallback poll, the default priority, the admission limits and the deduplication of ids. Immutable; {@code with...} methods return copies. {@link #defaults()} explains each default.
 *
 * @param visibilityTimeout how long a delivery is hidden from other consumers before it counts as failed and
 * is delivered again; listener containers extend it while the handler runs. From 100 ms to 12 hours
 * @param maxDeliveries deliveries before a failing message is dead-lettered, from 1 to 1000
 * @param initialBackoff the delay before the second delivery after a failure, from 0 to {@code maxBackoff}
 * @param maxBackoff the longest delay between deliveries, at most 30 days
 * @param backoffMultiplier how much the delay grows per failed delivery, from 1 to 100
 * @param backoffJitter the fraction by which each delay is varied at random either way, from 0 to 1
 * @param deadLetterRetention how long dead letters are kept, from 1 minute to 365 days
 * @param deadLetterMaxSize most dead letters kept; the oldest go first, from 1 to 10<sup>8</sup>
 * @param maxPayloadSize largest encoded payload accepted by enqueue, in bytes, from 1 to 512 MiB
 * @param pollInterval how often consumers look for due messages when no wake-up came: the latency a lost
 * notification costs, from 10 ms to 1 minute
 * @param defaultPriority the priority of a message enqueued without one (see {@link QueuePriority})
 * @param maxInFlight most messages in flight (claimed and not settled) across all consumers, from 1 to
 * {@value #MAX_IN_FLIGHT_LIMIT}; 0 for no limit. Claims take no more than the room left; what they leave waits
 * in ready, its delivery count unchanged
 * @param rateLimit most messages claimed in any window of {@code rateLimitPeriod} across all consumers, from 1 to
 * {@value #MAX_RATE_LIMIT}; 0 for no limit. Held-back messages wait in ready, their delivery count unchanged
 * @param rateLimitPeriod the window of {@code rateLimit}, from 1 ms to 1 day
 * @param deduplication what an enqueue of a caller-chosen id does while an earlier message of it is (or was
 * recently) in the queue, for messages enqueued without one of their own (see {@link Deduplication})
 * @param groups fair sharing between the groups of messages enqueued with one (see {@link QueueGroups}), or
 * {@code null}: the queue has no groups, and an enqueue with a group is refused
 */
public record QueueSpec(Duration visibilityTimeout, int maxDeliveries, Duration initialBackoff, Duration maxBackoff,
		double backoffMultiplier, double backoffJitter, Duration deadLetterRetention, long deadLetterMaxSize,
		long maxPayloadSize, Duration pollInterval, QueuePriority defaultPriority, int maxInFlight, long rateLimit,
		Duration rateLimitPeriod, Deduplication deduplication, @Nullable QueueGroups groups) {

	/** Largest {@code maxInFlight}. */
	public static final int MAX_IN_FLIGHT_LIMIT = 1_000_000;

	/**
	 * Largest {@code rateLimit}: the limit is counted in a sliding log of one entry per claimed message in the
	 * window, so it bounds that log's memory (about 100 bytes an entry).
	 */
	public static final long MAX_RATE_LIMIT = 100_000;

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason when a value is out of range
	 * @throws NullPointerException if a duration is missing
	 */
	public QueueSpec {
		requireRange("visibilityTimeout", visibilityTimeout, Duration.ofMillis(100), Duration.ofHours(12));
		if (maxDeliveries < 1 || maxDeliveries > 1000) {
			throw new InvalidSpecException("maxDeliveries", "must be between 1 and 1000, was " + maxDeliveries);
		}
		requireRange("maxBackoff", maxBackoff, Duration.ZERO, Duration.ofDays(30));
		requireRange("initialBackoff", initialBackoff, Duration.ZERO, maxBackoff);
		if (!(backoffMultiplier >= 1 && backoffMultiplier <= 100)) {
			throw new InvalidSpecException("backoffMultiplier", "must be between 1 and 100, was " + backoffMultiplier);
		}
		if (!(backoffJitter >= 0 && backoffJitter <= 1)) {
			throw new InvalidSpecException("backoffJitter", "must be between 0 and 1, was " + backoffJitter);
		}
		requireRange("deadLetterRetention", deadLetterRetention, Duration.ofMinutes(1), Duration.ofDays(365));
		if (deadLetterMaxSize < 1 || deadLetterMaxSize > 100_000_000L) {
			throw new InvalidSpecException("deadLetterMaxSize",
					"must be between 1 and 100000000, was " + deadLetterMaxSize);
		}
		if (maxPayloadSize < 1 || maxPayloadSize > 512L * 1024 * 1024) {
			throw new InvalidSpecException("maxPayloadSize",
					"must be between 1 byte and 512MB (the largest Redis value), was " + maxPayloadSize);
		}
		requireRange("pollInterval", pollInterval, Duration.ofMillis(10), Duration.ofMinutes(1));
		Objects.requireNonNull(defaultPriority, "defaultPriority must not be null");
		if (maxInFlight < 0 || maxInFlight > MAX_IN_FLIGHT_LIMIT) {
			throw new InvalidSpecException("maxInFlight",
					"must be between 0 (no limit) and " + MAX_IN_FLIGHT_LIMIT + ", was " + maxInFlight);
		}
		if (rateLimit < 0 || rateLimit > MAX_RATE_LIMIT) {
			throw new InvalidSpecException("rateLimit",
					"must be between 0 (no limit) and " + MAX_RATE_LIMIT + ", was " + rateLimit);
		}
		requireRange("rateLimitPeriod", rateLimitPeriod, Duration.ofMillis(1), Duration.ofDays(1));
		Objects.requireNonNull(deduplication, "deduplication must not be null");
	}

	/**
	 * A spec with {@link Deduplication#UNTIL_FINISHED}.
	 * @param visibilityTimeout see the component
	 * @param maxDeliveries see the component
	 * @param initialBackoff see the component
	 * @param maxBackoff see the component
	 * @param backoffMultiplier see the component
	 * @param backoffJitter see the component
	 * @param deadLetterRetention see the component
	 * @param deadLetterMaxSize see the component
	 * @param maxPayloadSize see the component
	 * @param pollInterval see the component
	 * @param defaultPriority see the component
	 * @param maxInFlight see the component
	 * @param rateLimit see the component
	 * @param rateLimitPeriod see the component
	 */
	public QueueSpec(Duration visibilityTimeout, int maxDeliveries, Duration initialBackoff, Duration maxBackoff,
			double backoffMultiplier, double backoffJitter, Duration deadLetterRetention, long deadLetterMaxSize,
			long maxPayloadSize, Duration pollInterval, QueuePriority defaultPriority, int maxInFlight, long rateLimit,
			Duration rateLimitPeriod) {
		this(visibilityTimeout, maxDeliveries, initialBackoff, maxBackoff, backoffMultiplier, backoffJitter,
				deadLetterRetention, deadLetterMaxSize, maxPayloadSize, pollInterval, defaultPriority, maxInFlight,
				rateLimit, rateLimitPeriod, Deduplication.UNTIL_FINISHED, null);
	}

	/**
	 * A spec with the normal default priority and no admission limits.
	 * @param visibilityTimeout see the component
	 * @param maxDeliveries see the component
	 * @param initialBackoff see the component
	 * @param maxBackoff see the component
	 * @param backoffMultiplier see the component
	 * @param backoffJitter see the component
	 * @param deadLetterRetention see the component
	 * @param deadLetterMaxSize see the component
	 * @param maxPayloadSize see the component
	 * @param pollInterval see the component
	 */
	public QueueSpec(Duration visibilityTimeout, int maxDeliveries, Duration initialBackoff, Duration maxBackoff,
			double backoffMultiplier, double backoffJitter, Duration deadLetterRetention, long deadLetterMaxSize,
			long maxPayloadSize, Duration pollInterval) {
		this(visibilityTimeout, maxDeliveries, initialBackoff, maxBackoff, backoffMultiplier, backoffJitter,
				deadLetterRetention, deadLetterMaxSize, maxPayloadSize, pollInterval, QueuePriority.NORMAL, 0, 0,
				Duration.ofSeconds(1));
	}

	private static void requireRange(String component, Duration value, Duration min, Duration max) {
		Objects.requireNonNull(value, () -> component + " must not be null");
		if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
			throw new InvalidSpecException(component, "must be between " + min + " and " + max + ", was " + value);
		}
	}

	/**
	 * The defaults, and why:
	 * <ul>
	 * <li>visibility 30 s: long enough that a handler is rarely redelivered while it still runs (containers
	 * extend it anyway), short enough that a crashed consumer's messages come back within a minute;</li>
	 * <li>10 deliveries with backoff from 1 s doubling to at most 1 h, varied by 20 %: a transient fault (a
	 * restart, a deploy) is ridden out over about 8.5 minutes of retries, a poison message stops costing work
	 * after ten tries, and jitter keeps a burst of failures from retrying in lockstep;</li>
	 * <li>dead letters kept 7 days, at most 100 000: a week covers a weekend before someone looks;</li>
	 * <li>payloads up to 1 MiB: a queue carries references and small documents, not files;</li>
	 * <li>fallback poll every second: a lost wake-up costs at most a second, at one poll per consumer per
	 * second;</li>
	 * <li>messages at {@link QueuePriority#NORMAL}, no limit on messages in flight or on the rate: limits depend
	 * on what the handlers call, which only the application knows;</li>
	 * <li>{@link Deduplication#UNTIL_FINISHED}: an id names one message while it is in the queue, as it always
	 * has.</li>
	 * </ul>
	 * @return the default spec
	 */
	public static QueueSpec defaults() {
		return new QueueSpec(Duration.ofSeconds(30), 10, Duration.ofSeconds(1), Duration.ofHours(1), 2.0, 0.2,
				Duration.ofDays(7), 100_000, 1024 * 1024, Duration.ofSeconds(1));
	}

	/** @param visibilityTimeout see the component; @return a copy with it */
	public QueueSpec withVisibilityTimeout(Duration visibilityTimeout) {
		return new QueueSpec(visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/** @param maxDeliveries see the component; @return a copy with it */
	public QueueSpec withMaxDeliveries(int maxDeliveries) {
		return new QueueSpec(this.visibilityTimeout, maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/**
	 * @param initial the first delay
	 * @param max the longest delay
	 * @param multiplier growth per failed delivery
	 * @param jitter random variation either way, as a fraction
	 * @return a copy with that backoff
	 */
	public QueueSpec withBackoff(Duration initial, Duration max, double multiplier, double jitter) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, initial, max, multiplier, jitter,
				this.deadLetterRetention, this.deadLetterMaxSize, this.maxPayloadSize, this.pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/**
	 * @param retention how long dead letters are kept
	 * @param maxSize most dead letters kept
	 * @return a copy with those bounds
	 */
	public QueueSpec withDeadLetters(Duration retention, long maxSize) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, retention, maxSize, this.maxPayloadSize, this.pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/** @param maxPayloadSize see the component; @return a copy with it */
	public QueueSpec withMaxPayloadSize(long maxPayloadSize) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				maxPayloadSize, this.pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/** @param pollInterval see the component; @return a copy with it */
	public QueueSpec withPollInterval(Duration pollInterval) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, pollInterval,
				this.defaultPriority, this.maxInFlight, this.rateLimit, this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/** @param defaultPriority see the component; @return a copy with it */
	public QueueSpec withDefaultPriority(QueuePriority defaultPriority) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval, defaultPriority, this.maxInFlight, this.rateLimit,
				this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/** @param maxInFlight see the component; @return a copy with it */
	public QueueSpec withMaxInFlight(int maxInFlight) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval, this.defaultPriority, maxInFlight, this.rateLimit,
				this.rateLimitPeriod, this.deduplication, this.groups);
	}

	/**
	 * @param limit most messages claimed in any window of {@code period}, 0 for none
	 * @param period the window
	 * @return a copy with that rate limit
	 */
	public QueueSpec withRateLimit(long limit, Duration period) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval, this.defaultPriority, this.maxInFlight, limit, period,
				this.deduplication, this.groups);
	}

	/**
	 * @param deduplication what an enqueue of a caller-chosen id does while an earlier message of it is (or was
	 * recently) in the queue, for entries without one of their own
	 * @return a copy with it
	 */
	public QueueSpec withDeduplication(Deduplication deduplication) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval, this.defaultPriority, this.maxInFlight, this.rateLimit,
				this.rateLimitPeriod, deduplication, this.groups);
	}

	/**
	 * @param groups fair sharing between the groups of messages enqueued with one ({@link QueueEntry#withGroup}), or
	 * {@code null} for a queue without groups
	 * @return a copy with it
	 */
	public QueueSpec withGroups(@Nullable QueueGroups groups) {
		return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
				this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
				this.maxPayloadSize, this.pollInterval, this.defaultPriority, this.maxInFlight, this.rateLimit,
				this.rateLimitPeriod, this.deduplication, groups);
	}

	/**
	 * The delay before the next delivery after a failed one, without jitter:
	 * {@code min(maxBackoff, initialBackoff * multiplier^(deliveries - 1))}.
	 * @param deliveries deliveries so far, the failed one included
	 * @return the delay
	 */
	public Duration backoff(int deliveries) {
		double millis = this.initialBackoff.toMillis() * Math.pow(this.backoffMultiplier, Math.max(0, deliveries - 1));
		return Duration.ofMillis((long) Math.min(millis, this.maxBackoff.toMillis()));
	}

	/**
	 * {@link #backoff(int)} varied at random by up to {@code backoffJitter} either way, never above
	 * {@code maxBackoff}.
	 * @param deliveries deliveries so far, the failed one included
	 * @return the delay to use
	 */
	public Duration jitteredBackoff(int deliveries) {
		long millis = backoff(deliveries).toMillis();
		if (this.backoffJitter == 0 || millis == 0) {
			return Duration.ofMillis(millis);
		}
		double factor = 1 + this.backoffJitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
		return Duration.ofMillis(Math.min((long) (millis * factor), this.maxBackoff.toMillis()));
	}

}

package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.queue.Deduplication;
import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueSpec;
import io.rediskit.support.Names;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Delay queue settings, under {@code redis-kit.queue}. Each entry of {@code queues} is a queue that
 * {@link io.rediskit.queue.QueueRegistry#get(String, Class)} and {@code @QueueListener(queue = ...)} find by
 * its name; every setting has a default (see {@link QueueSpec#defaults()} for the reasons). The delivery policies
 * (visibility timeout, deliveries, retry backoff, dead-letter bounds) at the group's level are the defaults of
 * every queue, and a queue's own value wins:
 *
 * <pre>{@code
 * redis-kit:
 *   queue:
 *     max-deliveries: 5
 *     queues:
 *       emails:
 *         visibility-timeout: 30s
 *       reports:
 *         max-deliveries: 2
 * }</pre>
 *
 * The other settings (payload size, poll interval, default priority, admission limits) are what a queue is, and
 * each queue sets its own. Checked when the registry is built, by the rules of {@link io.rediskit.queue.QueueSpec} and
 * {@link io.rediskit.support.Names}, each queue over the defaults it inherits (an own {@code initial-backoff} above
 * an inherited {@code max-backoff}): an out-of-range value, an invalid name or a property that binds to nothing
 * fails startup with a message naming the property.
 */
@ConfigurationProperties(prefix = "redis-kit.queue", ignoreUnknownFields = false)
public class QueueProperties {

	/**
	 * Whether to auto-configure the queues and @QueueListener.
	 */
	private boolean enabled = true;

	/**
	 * How long a delivery stays hidden from other consumers before it is delivered again, for every queue that
	 * does not say; listener containers extend it while the handler runs. From 100ms to 12h.
	 */
	private Duration visibilityTimeout = Duration.ofSeconds(30);

	/**
	 * Deliveries before a failing message goes to the dead-letter queue, for every queue that does not say; from 1
	 * to 1000.
	 */
	private int maxDeliveries = 10;

	/**
	 * Delay before the second delivery of a failed message, for every queue that does not say; at most
	 * max-backoff.
	 */
	private Duration initialBackoff = Duration.ofSeconds(1);

	/**
	 * Longest delay between deliveries of a failing message, for every queue that does not say; at most 30 days.
	 */
	private Duration maxBackoff = Duration.ofHours(1);

	/**
	 * Growth of the delay per failed delivery, for every queue that does not say; from 1 to 100.
	 */
	private double backoffMultiplier = 2.0;

	/**
	 * Fraction by which each delay is varied at random either way, for every queue that does not say; from 0 to 1.
	 */
	private double backoffJitter = 0.2;

	/**
	 * How long dead letters are kept, for every queue that does not say; from 1 minute to 365 days.
	 */
	private Duration deadLetterRetention = Duration.ofDays(7);

	/**
	 * Most dead letters kept, for every queue that does not say; the oldest go first. From 1 to 100000000.
	 */
	private long deadLetterMaxSize = 100_000;

	/**
	 * Queues by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Queue> queues = new LinkedHashMap<>();

	/**
	 * Recurring jobs by name: each enqueues one message per slot of its schedule into its queue, once across
	 * instances.
	 */
	private Map<String, RecurringJobProperties> recurring = new LinkedHashMap<>();

	/**
	 * Listener containers of @QueueListener methods.
	 */
	private final Listener listener = new Listener();

	/**
	 * Health indicator of the queues.
	 */
	private final Health health = new Health();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getVisibilityTimeout() {
		return this.visibilityTimeout;
	}

	public void setVisibilityTimeout(Duration visibilityTimeout) {
		this.visibilityTimeout = visibilityTimeout;
	}

	public int getMaxDeliveries() {
		return this.maxDeliveries;
	}

	public void setMaxDeliveries(int maxDeliveries) {
		this.maxDeliveries = maxDeliveries;
	}

	public Duration getInitialBackoff() {
		return this.initialBackoff;
	}

	public void setInitialBackoff(Duration initialBackoff) {
		this.initialBackoff = initialBackoff;
	}

	public Duration getMaxBackoff() {
		return this.maxBackoff;
	}

	public void setMaxBackoff(Duration maxBackoff) {
		this.maxBackoff = maxBackoff;
	}

	public double getBackoffMultiplier() {
		return this.backoffMultiplier;
	}

	public void setBackoffMultiplier(double backoffMultiplier) {
		this.backoffMultiplier = backoffMultiplier;
	}

	public double getBackoffJitter() {
		return this.backoffJitter;
	}

	public void setBackoffJitter(double backoffJitter) {
		this.backoffJitter = backoffJitter;
	}

	public Duration getDeadLetterRetention() {
		return this.deadLetterRetention;
	}

	public void setDeadLetterRetention(Duration deadLetterRetention) {
		this.deadLetterRetention = deadLetterRetention;
	}

	public long getDeadLetterMaxSize() {
		return this.deadLetterMaxSize;
	}

	public void setDeadLetterMaxSize(long deadLetterMaxSize) {
		this.deadLetterMaxSize = deadLetterMaxSize;
	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public void setQueues(Map<String, Queue> queues) {
		this.queues = queues;
	}

	public Map<String, RecurringJobProperties> getRecurring() {
		return this.recurring;
	}

	public void setRecurring(Map<String, RecurringJobProperties> recurring) {
		this.recurring = recurring;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Health getHealth() {
		return this.health;
	}

	/**
	 * One queue; every setting has a default, and the delivery policies left unset take those of
	 * {@code redis-kit.queue}.
	 */
	public static class Queue {

		private static final QueueSpec DEFAULTS = QueueSpec.defaults();

		/**
		 * How long a delivery stays hidden from other consumers before it is delivered again; listener
		 * containers extend it while the handler runs. From 100ms to 12h; unset for
		 * redis-kit.queue.visibility-timeout.
		 */
		private @Nullable Duration visibilityTimeout;

		/**
		 * Deliveries before a failing message goes to the dead-letter queue, from 1 to 1000; unset for
		 * redis-kit.queue.max-deliveries.
		 */
		private @Nullable Integer maxDeliveries;

		/**
		 * Delay before the second delivery of a failed message, at most max-backoff; unset for
		 * redis-kit.queue.initial-backoff.
		 */
		private @Nullable Duration initialBackoff;

		/**
		 * Longest delay between deliveries of a failing message, at most 30 days; unset for
		 * redis-kit.queue.max-backoff.
		 */
		private @Nullable Duration maxBackoff;

		/**
		 * Growth of the delay per failed delivery, from 1 to 100; unset for redis-kit.queue.backoff-multiplier.
		 */
		private @Nullable Double backoffMultiplier;

		/**
		 * Fraction by which each delay is varied at random either way, from 0 to 1; unset for
		 * redis-kit.queue.backoff-jitter.
		 */
		private @Nullable Double backoffJitter;

		/**
		 * How long dead letters are kept, from 1 minute to 365 days; unset for
		 * redis-kit.queue.dead-letter-retention.
		 */
		private @Nullable Duration deadLetterRetention;

		/**
		 * Most dead letters kept, the oldest going first; unset for redis-kit.queue.dead-letter-max-size.
		 */
		private @Nullable Long deadLetterMaxSize;

		/**
		 * Largest payload (as JSON) accepted by enqueue.
		 */
		private DataSize maxPayloadSize = DataSize.ofBytes(DEFAULTS.maxPayloadSize());

		/**
		 * How often consumers look for due messages when no wake-up came: the most a lost notification delays a
		 * message. From 10ms to 1m.
		 */
		private Duration pollInterval = DEFAULTS.pollInterval();

		/**
		 * Priority of messages enqueued without one: 'high', 'normal' or 'low' (names, never numbers). Claims take the priorities in a
		 * weighted turn of 6 high, 3 normal, 1 low, so no priority starves.
		 */
		private QueuePriority defaultPriority = DEFAULTS.defaultPriority();

		/**
		 * Most messages in flight (claimed and not settled) across all consumers of all instances, from 1 to
		 * 1000000; 0 for no limit. Messages held back wait in the queue; no delivery is counted for them.
		 */
		private int maxInFlight = DEFAULTS.maxInFlight();

		/**
		 * Most messages delivered in any window of rate-limit-period across all consumers of all instances, from 1
		 * to 100000; 0 for no limit. Messages held back wait in the queue; no delivery is counted for them.
		 */
		private long rateLimit = DEFAULTS.rateLimit();

		/**
		 * Window of rate-limit, from 1ms to 1d; set only with rate-limit.
		 */
		private Duration rateLimitPeriod = DEFAULTS.rateLimitPeriod();

		/**
		 * What an enqueue of an id given by the application does while an earlier message of it is, or was
		 * recently, in the queue: 'until-finished' (dropped while that message is in the queue in any state),
		 * 'until-started' (dropped while it waits for its first delivery), 'throttle' (dropped within
		 * deduplication-window of the last enqueue that was not) or 'debounce' (within deduplication-window, replaces
		 * the waiting message's payload and due time). A message's own choice wins.
		 */
		private Deduplication.Mode deduplication = DEFAULTS.deduplication().mode();

		/**
		 * Window of a 'throttle' or 'debounce' deduplication, from 1ms; set only with one of those.
		 */
		private @Nullable Duration deduplicationWindow;

		/**
		 * Fair sharing between the groups (tenants, customers) messages are enqueued with.
		 */
		private final Groups groups = new Groups();

		public @Nullable Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(@Nullable Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public @Nullable Integer getMaxDeliveries() {
			return this.maxDeliveries;
		}

		public void setMaxDeliveries(@Nullable Integer maxDeliveries) {
			this.maxDeliveries = maxDeliveries;
		}

		public @Nullable Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(@Nullable Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public @Nullable Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(@Nullable Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public @Nullable Double getBackoffMultiplier() {
			return this.backoffMultiplier;
		}

		public void setBackoffMultiplier(@Nullable Double backoffMultiplier) {
			this.backoffMultiplier = backoffMultiplier;
		}

		public @Nullable Double getBackoffJitter() {
			return this.backoffJitter;
		}

		public void setBackoffJitter(@Nullable Double backoffJitter) {
			this.backoffJitter = backoffJitter;
		}

		public @Nullable Duration getDeadLetterRetention() {
			return this.deadLetterRetention;
		}

		public void setDeadLetterRetention(@Nullable Duration deadLetterRetention) {
			this.deadLetterRetention = deadLetterRetention;
		}

		public @Nullable Long getDeadLetterMaxSize() {
			return this.deadLetterMaxSize;
		}

		public void setDeadLetterMaxSize(@Nullable Long deadLetterMaxSize) {
			this.deadLetterMaxSize = deadLetterMaxSize;
		}

		public DataSize getMaxPayloadSize() {
			return this.maxPayloadSize;
		}

		public void setMaxPayloadSize(DataSize maxPayloadSize) {
			this.maxPayloadSize = maxPayloadSize;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public QueuePriority getDefaultPriority() {
			return this.defaultPriority;
		}

		public void setDefaultPriority(QueuePriority defaultPriority) {
			this.defaultPriority = defaultPriority;
		}

		public int getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(int maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

		public long getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(long rateLimit) {
			this.rateLimit = rateLimit;
		}

		public Duration getRateLimitPeriod() {
			return this.rateLimitPeriod;
		}

		public void setRateLimitPeriod(Duration rateLimitPeriod) {
			this.rateLimitPeriod = rateLimitPeriod;
		}

		public Deduplication.Mode getDeduplication() {
			return this.deduplication;
		}

		public void setDeduplication(Deduplication.Mode deduplication) {
			this.deduplication = deduplication;
		}

		public @Nullable Duration getDeduplicationWindow() {
			return this.deduplicationWindow;
		}

		public void setDeduplicationWindow(@Nullable Duration deduplicationWindow) {
			this.deduplicationWindow = deduplicationWindow;
		}

		public Groups getGroups() {
			return this.groups;
		}

	}

	/**
	 * Fair sharing between the groups of one queue ({@link io.rediskit.queue.QueueGroups}): claims take the groups
	 * with ready messages in turn, round-robin, one message each, within each group's limits of messages in flight
	 * and claimed per period.
	 */
	public static class Groups {

		/**
		 * Whether the queue takes grouped messages and rotates claims between groups. Every instance must agree.
		 */
		private boolean enabled;

		/**
		 * Most messages of one group in flight across every consumer, 0 for no limit.
		 */
		private int maxInFlight;

		/**
		 * A group's own limit of messages in flight, by the group's name, instead of max-in-flight.
		 */
		private Map<String, Integer> maxInFlightByGroup = new LinkedHashMap<>();

		/**
		 * Most messages of one group claimed in any window of rate-limit-period across every consumer, 0 for no
		 * limit.
		 */
		private long rateLimit;

		/**
		 * Window of the groups' rate limits (rate-limit and rate-limit-by-group), from 1ms to 1d; set only with one
		 * of them.
		 */
		private Duration rateLimitPeriod = Duration.ofSeconds(1);

		/**
		 * A group's own rate limit, by the group's name, instead of rate-limit; 0 for none.
		 */
		private Map<String, Long> rateLimitByGroup = new LinkedHashMap<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxInFlight() {
			return this.maxInFlight;
		}

		public void setMaxInFlight(int maxInFlight) {
			this.maxInFlight = maxInFlight;
		}

		public Map<String, Integer> getMaxInFlightByGroup() {
			return this.maxInFlightByGroup;
		}

		public void setMaxInFlightByGroup(Map<String, Integer> maxInFlightByGroup) {
			this.maxInFlightByGroup = maxInFlightByGroup;
		}

		public long getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(long rateLimit) {
			this.rateLimit = rateLimit;
		}

		public Duration getRateLimitPeriod() {
			return this.rateLimitPeriod;
		}

		public void setRateLimitPeriod(Duration rateLimitPeriod) {
			this.rateLimitPeriod = rateLimitPeriod;
		}

		public Map<String, Long> getRateLimitByGroup() {
			return this.rateLimitByGroup;
		}

		public void setRateLimitByGroup(Map<String, Long> rateLimitByGroup) {
			this.rateLimitByGroup = rateLimitByGroup;
		}

	}

	/**
	 * Listener containers.
	 */
	public static class Listener {

		/**
		 * Time running handlers get to finish when the application stops; the messages of those still running
		 * then go back to the queue at once.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(10);

		/**
		 * Whether @QueueListener containers start with the application.
		 */
		private boolean autoStartup = true;

		/**
		 * Messages each container claims ahead of its free handlers, 0 to 1000 minus its concurrency; a claim takes
		 * up to concurrency + prefetch messages in one call. More drains bursts in fewer round trips; less leaves
		 * more to other instances when handlers are slow. Unset: 4 per handler.
		 */
		private @Nullable Integer prefetch;

		/**
		 * Longest time a finished message's ack is held back while other messages its container took are still
		 * being handled, to be sent with theirs in one call; 0 to 1s and at most a tenth of the queue's visibility
		 * timeout, 0 to send each at once. A crash while acks are held redelivers their messages after the
		 * visibility timeout; a stop sends them at once.
		 */
		private Duration ackLinger = Duration.ofMillis(2);

		/**
		 * Threads the handlers run on: 'dedicated' (each container runs up to its concurrency in threads of its
		 * own, virtual when spring.threads.virtual.enabled is true on Java 21+) or 'application' (the
		 * application's applicationTaskExecutor bean, whose size then caps every container's concurrency).
		 */
		private ExecutorChoice executor = ExecutorChoice.DEDICATED;

		public @Nullable Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Integer prefetch) {
			if (prefetch != null && (prefetch < 0 || prefetch > 999)) {
				throw new IllegalArgumentException("redis-kit.queue.listener.prefetch must be between 0 and 999"
						+ " (1000 minus a container's concurrency), was " + prefetch);
			}
			this.prefetch = prefetch;
		}

		public Duration getAckLinger() {
			return this.ackLinger;
		}

		public void setAckLinger(Duration ackLinger) {
			if (ackLinger.isNegative() || ackLinger.compareTo(Duration.ofSeconds(1)) > 0) {
				throw new IllegalArgumentException("redis-kit.queue.listener.ack-linger must be between 0 and 1s, was "
						+ ackLinger.toMillis() + "ms");
			}
			this.ackLinger = ackLinger;
		}

		public ExecutorChoice getExecutor() {
			return this.executor;
		}

		public void setExecutor(ExecutorChoice executor) {
			this.executor = executor;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

	}

	/** Threads the handlers of @QueueListener containers run on. */
	public enum ExecutorChoice {

		/** Threads of each container's own, up to its concurrency; virtual with spring.threads.virtual.enabled. */
		DEDICATED,

		/** The application's applicationTaskExecutor bean. */
		APPLICATION

	}

	/**
	 * Health indicator.
	 */
	public static class Health {

		/**
		 * Age of the oldest due message above which a queue is late (named in the health's 'late' detail):
		 * consumers are missing or too slow.
		 */
		private Duration maxOldestDueAge = Duration.ofMinutes(5);

		/**
		 * Health status reported while a queue is late: UP by default, so that a backlog (consumers elsewhere
		 * too slow) does not take an instance out of its load balancer; DOWN or OUT_OF_SERVICE to act on it.
		 */
		private String lateStatus = "UP";

		public String getLateStatus() {
			return this.lateStatus;
		}

		public void setLateStatus(String lateStatus) {
			this.lateStatus = lateStatus;
		}

		public Duration getMaxOldestDueAge() {
			return this.maxOldestDueAge;
		}

		public void setMaxOldestDueAge(Duration maxOldestDueAge) {
			this.maxOldestDueAge = maxOldestDueAge;
		}

	}

}

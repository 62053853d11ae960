package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueSpec;
import io.rediskit.autoconfigure.support.NamedEntry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Delay queue settings, under {@code redis-kit.queue}. Each entry of {@code queues} is a queue that
 * {@link io.rediskit.queue.QueueRegistry#get(String, Class)} and {@code @QueueListener(queue = ...)} find by
 * its name; every setting has a default (see {@link QueueSpec#defaults()} for the reasons):
 *
 * <pre>{@code
 * redis-kit:
 *   queue:
 *     queues:
 *       emails:
 *         visibility-timeout: 30s
 *         max-deliveries: 10
 * }</pre>
 *
 * Validated when bound, by the rules of {@link QueueSpec} and {@link Names}: an out-of-range value, an invalid
 * name or a property that binds to nothing fails startup with a message naming the property.
 */
@ConfigurationProperties(prefix = "redis-kit.queue", ignoreUnknownFields = false)
public class QueueProperties implements Validator {

	private static final String PREFIX = "redis-kit.queue.";

	/**
	 * Whether to auto-configure the queues and @QueueListener.
	 */
	private boolean enabled = true;

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

	@Override
	public boolean supports(Class<?> type) {
		return Queue.class.isAssignableFrom(type) || RecurringJobProperties.class.isAssignableFrom(type);
	}

	/**
	 * Validates a queue or a recurring job bound by Spring Boot, whose binder names the errors after the entry's
	 * property, such as {@code redis-kit.queue.queues.emails}: the name by {@link Names}, the values by the
	 * constructor of {@link QueueSpec} or {@link io.rediskit.queue.RecurringJobSpec}.
	 */
	@Override
	public void validate(Object target, Errors errors) {
		if (target instanceof RecurringJobProperties job) {
			String property = NamedEntry.property(errors, PREFIX + "recurring.", "recurring job");
			if (property != null) {
				NamedEntry.checkSpec(errors, property, job::toSpec);
			}
			return;
		}
		Queue queue = (Queue) target;
		String property = NamedEntry.property(errors, PREFIX + "queues.", "queue");
		if (property == null) {
			return;
		}
		NamedEntry.checkSpec(errors, property, queue::toSpec);
	}

	/**
	 * One queue; every setting has a default.
	 */
	public static class Queue {

		private static final QueueSpec DEFAULTS = QueueSpec.defaults();

		/**
		 * How long a delivery stays hidden from other consumers before it is delivered again; listener
		 * containers extend it while the handler runs. From 100ms to 12h.
		 */
		private Duration visibilityTimeout = DEFAULTS.visibilityTimeout();

		/**
		 * Deliveries before a failing message goes to the dead-letter queue, from 1 to 1000.
		 */
		private int maxDeliveries = DEFAULTS.maxDeliveries();

		/**
		 * Delay before the second delivery of a failed message.
		 */
		private Duration initialBackoff = DEFAULTS.initialBackoff();

		/**
		 * Longest delay between deliveries of a failing message, at most 30 days.
		 */
		private Duration maxBackoff = DEFAULTS.maxBackoff();

		/**
		 * Growth of the delay per failed delivery, from 1 to 100.
		 */
		private double backoffMultiplier = DEFAULTS.backoffMultiplier();

		/**
		 * Fraction by which each delay is varied at random either way, from 0 to 1.
		 */
		private double backoffJitter = DEFAULTS.backoffJitter();

		/**
		 * How long dead letters are kept, from 1 minute to 365 days.
		 */
		private Duration deadLetterRetention = DEFAULTS.deadLetterRetention();

		/**
		 * Most dead letters kept; the oldest go first.
		 */
		private long deadLetterMaxSize = DEFAULTS.deadLetterMaxSize();

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

		/**
		 * The core spec these settings describe, built anew on each call.
		 * @return the spec
		 * @throws InvalidSpecException if a value is out of range (startup validation prevents it)
		 */
		public QueueSpec toSpec() {
			return new QueueSpec(this.visibilityTimeout, this.maxDeliveries, this.initialBackoff, this.maxBackoff,
					this.backoffMultiplier, this.backoffJitter, this.deadLetterRetention, this.deadLetterMaxSize,
					this.maxPayloadSize.toBytes(), this.pollInterval, this.defaultPriority, this.maxInFlight,
					this.rateLimit, this.rateLimitPeriod);
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

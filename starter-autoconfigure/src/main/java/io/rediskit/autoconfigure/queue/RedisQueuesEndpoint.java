package io.rediskit.autoconfigure.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.autoconfigure.support.InvalidEndpointRequest;
import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.queue.BatchProgress;
import io.rediskit.queue.DeadLetter;
import io.rediskit.queue.QueueGroups;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueStats;
import io.rediskit.queue.RecurringJobInfo;
import io.rediskit.queue.RecurringJobSpec;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * Actuator endpoint {@code rediskitqueue}: every queue's counts by state and oldest due age, and every recurring
 * job with its last and next slot ({@code GET /actuator/rediskitqueue}), one queue's with its oldest dead letters
 * ({@code GET /actuator/rediskitqueue/{name}}), and, only with
 * {@code management.endpoint.rediskitqueue.access=unrestricted} (read-only by default, like other write
 * operations), redrive ({@code POST /actuator/rediskitqueue/{name}} with {@code {"max": 100}}), purge
 * ({@code DELETE /actuator/rediskitqueue/{name}}), cancel of one message, waiting or running
 * ({@code DELETE /actuator/rediskitqueue/{name}/{id}}, see {@link RedisQueue#cancel(String)}), and pause and resume
 * of a queue on every instance ({@code POST /actuator/rediskitqueue/{name}/pause} or {@code .../resume}, with
 * {@code {}}, or {@code {"listener": "<id>"}} for one listener of it), and redrive or deletion of one chosen dead
 * letter ({@code POST} or {@code DELETE /actuator/rediskitqueue/{name}/dead-letters/{id}}).
 * <p>
 * Dead letters show their payloads and headers (a message's data: personal data, tenant and user ids), and a grouped
 * queue's groups their names (a tenant, a user), only as {@code management.endpoint.rediskitqueue.show-values} says,
 * like Spring Boot's {@code env} endpoint: never by default, {@code when-authorized} to a user in one of
 * {@code management.endpoint.rediskitqueue.roles} (any authenticated user when none is set), or {@code always}.
 * Hidden, a dead letter keeps everything else and the size of its payload, a group its counts and limits. Over JMX
 * no user is known, so {@code when-authorized} hides them there.
 */
@Endpoint(id = "rediskitqueue", defaultAccess = Access.READ_ONLY)
public class RedisQueuesEndpoint {

	static final int DEAD_LETTERS_LISTED = 20;

	/** Most batches in progress a queue's descriptor lists. */
	static final int BATCHES_LISTED = 20;

	/** Most groups a queue's descriptor lists: those with the most ready messages. */
	static final int GROUPS_LISTED = 20;

	private final QueueRegistry registry;

	private final QueueProperties properties;

	private final @Nullable RecurringJobs recurringJobs;

	private final ShownValues shownValues;

	/**
	 * An endpoint that never shows dead letters' payloads and headers.
	 * @param registry the queues
	 * @param properties the configured queue names
	 */
	public RedisQueuesEndpoint(QueueRegistry registry, QueueProperties properties) {
		this(registry, properties, null);
	}

	/**
	 * An endpoint that never shows dead letters' payloads and headers.
	 * @param registry the queues
	 * @param properties the configured queue names
	 * @param recurringJobs the recurring jobs to list, or {@code null}
	 */
	public RedisQueuesEndpoint(QueueRegistry registry, QueueProperties properties,
			@Nullable RecurringJobs recurringJobs) {
		this.registry = registry;
		this.properties = properties;
		this.recurringJobs = recurringJobs;
		this.shownValues = ShownValues.never();
	}

	/**
	 * @param registry the queues
	 * @param properties the configured queue names
	 * @param recurringJobs the recurring jobs to list, or {@code null}
	 * @param showValues when dead letters show their payloads and headers
	 * @param roles the roles that see them with {@link Show#WHEN_AUTHORIZED}; empty: every authenticated user
	 */
	public RedisQueuesEndpoint(QueueRegistry registry, QueueProperties properties,
			@Nullable RecurringJobs recurringJobs, Show showValues, Set<String> roles) {
		this(registry, properties, recurringJobs, ShownValues.of(showValues, roles));
	}

	/**
	 * @param registry the queues
	 * @param properties the configured queue names
	 * @param recurringJobs the recurring jobs to list, or {@code null}
	 * @param shownValues to whom dead letters show their payloads and headers
	 */
	public RedisQueuesEndpoint(QueueRegistry registry, QueueProperties properties,
			@Nullable RecurringJobs recurringJobs, ShownValues shownValues) {
		this.registry = registry;
		this.properties = properties;
		this.recurringJobs = recurringJobs;
		this.shownValues = shownValues;
	}

	/** @return the configured queues and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getQueues());
	}

	/** @return the stats of every configured queue and every queue used so far, and the recurring jobs */
	@ReadOperation
	public QueuesDescriptor queues() {
		Map<String, StatsDescriptor> queues = new LinkedHashMap<>();
		for (String name : names()) {
			RedisQueue<Object> queue = handle(name);
			queues.put(name, StatsDescriptor.of(queue.stats(), queue.isPaused()));
		}
		Map<String, RecurringDescriptor> recurring = new LinkedHashMap<>();
		if (this.recurringJobs != null) {
			RecurringJobs jobs = this.recurringJobs;
			jobs.jobs().forEach((job) -> recurring.put(job.name(), RecurringDescriptor.of(job, paused(jobs, job.name()))));
		}
		return new QueuesDescriptor(queues, recurring);
	}

	// One read per job; a job whose flag cannot be read shows without it rather than failing the whole answer.
	private static @Nullable Boolean paused(RecurringJobs jobs, String name) {
		try {
			return jobs.isPaused(name);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * @param securityContext who asks, for {@code show-values=when-authorized}
	 * @param name the queue
	 * @return its stats, oldest dead letters (with their payloads and headers only if shown to who asks), batches in
	 * progress and busiest groups (named only if shown); {@code null} for a queue not {@link #names() listed},
	 * answered as Spring Boot's own endpoints answer a name they do not have (404 over HTTP)
	 */
	@ReadOperation
	public @Nullable QueueDescriptor queue(SecurityContext securityContext, @Selector String name) {
		if (!names().contains(name)) {
			return null;
		}
		boolean shown = this.shownValues.to(securityContext);
		RedisQueue<Object> queue = handle(name);
		QueueStats stats = queue.stats();
		List<DeadLetterDescriptor> deadLetters = queue.deadLetters(DEAD_LETTERS_LISTED)
			.stream()
			.map((letter) -> DeadLetterDescriptor.of(letter, shown))
			.toList();
		return new QueueDescriptor(name, StatsDescriptor.of(stats, queue.isPaused()), deadLetters,
				batches(queue, stats), groups(queue, shown));
	}

	/**
	 * The batches of a queue as {@link #queue(SecurityContext, String)} lists them, for a reader that wants them without the dead
	 * letters (the console).
	 * @param queue the queue
	 * @param stats its stats, read just before
	 * @return its batches in progress, at most 20; none read when the stats count none
	 */
	public static List<BatchDescriptor> batches(RedisQueue<?> queue, QueueStats stats) {
		return (stats.batchesInProgress() > 0)
				? queue.batchesInProgress(BATCHES_LISTED).stream().map(BatchDescriptor::of).toList() : List.of();
	}

	/**
	 * The groups of a queue as {@link #queue(SecurityContext, String)} lists them, each with its limits from the queue's spec. A
	 * group's name is the application's data (a tenant, a user), shown as dead letters' payloads are.
	 * @param queue the queue
	 * @param shown whether the groups show their names
	 * @return its 20 groups with the most ready messages; none for a queue without groups
	 */
	public static List<GroupDescriptor> groups(RedisQueue<?> queue, boolean shown) {
		QueueGroups limits = queue.spec().groups();
		if (limits == null) {
			return List.of();
		}
		String period = Durations.format(limits.rateLimitPeriod());
		return queue.groupStats(GROUPS_LISTED)
			.stream()
			.map((group) -> new GroupDescriptor(shown ? group.group() : null, group.ready(), group.inFlight(),
					limits.maxInFlight(group.group()), limits.rateLimit(group.group()), period))
			.toList();
	}

	/**
	 * Moves dead letters back to the queue, oldest first.
	 * @param name the queue
	 * @param max most to move
	 * @return how many moved
	 */
	@WriteOperation
	public Map<String, Long> redrive(@Selector String name, int max) {
		return Map.of("redriven", selected(name).redrive(max));
	}

	/**
	 * Pauses or resumes a queue, or one listener of it, on every instance: while paused no claim takes a message,
	 * and what is in flight finishes. Kept in Redis until resumed, restarts included.
	 * @param name the queue
	 * @param action {@code pause} or {@code resume}
	 * @param listener the id of one listener of the queue ({@code <bean>.<method>} unless its {@code @QueueListener}
	 * names one), or {@code null} for the whole queue
	 * @return the queue and whether it (or the listener named) is paused now; the listener's id is not repeated
	 */
	@WriteOperation
	public Map<String, Object> pause(@Selector String name, @Selector String action, @Nullable String listener) {
		boolean pause = switch (action) {
			case "pause" -> true;
			case "resume" -> false;
			default -> throw InvalidEndpointRequest.of("action must be 'pause' or 'resume'");
		};
		RedisQueue<Object> queue = selected(name);
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("queue", name);
		if (listener == null || listener.isEmpty()) {
			if (pause) {
				queue.pause();
			}
			else {
				queue.resume();
			}
			result.put("paused", queue.isPaused());
			return result;
		}
		if (pause) {
			this.registry.pauseListener(name, listener);
		}
		else {
			this.registry.resumeListener(name, listener);
		}
		// The listener's id is not repeated: the request named it, and answers never echo what a caller sends.
		result.put("paused", this.registry.isListenerPaused(name, listener));
		return result;
	}

	/**
	 * Removes every message of a queue.
	 * @param name the queue
	 * @return how many there were
	 */
	@DeleteOperation
	public Map<String, Long> purge(@Selector String name) {
		return Map.of("purged", selected(name).purge());
	}

	/**
	 * Cancels one message: removed if not delivered yet; if in flight, its handler is interrupted and it is
	 * dead-lettered as cancelled.
	 * @param name the queue
	 * @param id the message id
	 * @return whether it was cancelled ({@code false}: dead, done or unknown)
	 */
	@DeleteOperation
	public Map<String, Boolean> cancel(@Selector String name, @Selector String id) {
		return Map.of("cancelled", selected(name).cancel(id));
	}

	/**
	 * Moves one chosen dead letter back to the queue, with its delivery count reset.
	 * @param name the queue
	 * @param part {@code dead-letters}
	 * @param id the dead letter's message id
	 * @return whether it moved ({@code false}: not a dead letter, or no longer)
	 */
	@WriteOperation
	public Map<String, Boolean> redriveDeadLetter(@Selector String name, @Selector String part, @Selector String id) {
		return Map.of("redriven", selected(name).redriveDeadLetter(deadLetterId(part, id)));
	}

	/**
	 * Deletes one chosen dead letter.
	 * @param name the queue
	 * @param part {@code dead-letters}
	 * @param id the dead letter's message id
	 * @return whether it was deleted ({@code false}: not a dead letter, or no longer)
	 */
	@DeleteOperation
	public Map<String, Boolean> deleteDeadLetter(@Selector String name, @Selector String part, @Selector String id) {
		return Map.of("deleted", selected(name).deleteDeadLetter(deadLetterId(part, id)));
	}

	private static String deadLetterId(String part, String id) {
		if (!"dead-letters".equals(part)) {
			throw InvalidEndpointRequest.of("the path must be {name}/dead-letters/{id}");
		}
		return id;
	}

	/**
	 * The queue an action names: one not {@link #names() listed} is a bad request (400 over HTTP), not a server
	 * error, and its name is not echoed (it is user input).
	 */
	private RedisQueue<Object> selected(String name) {
		if (!names().contains(name)) {
			throw InvalidEndpointRequest.of("No queue is named so");
		}
		return handle(name);
	}

	private RedisQueue<Object> handle(String name) {
		return this.registry.get(name, Object.class);
	}

	/**
	 * @param queues stats by queue name
	 * @param recurring recurring jobs by name
	 */
	public record QueuesDescriptor(Map<String, StatsDescriptor> queues, Map<String, RecurringDescriptor> recurring) {
	}

	/**
	 * @param queue the queue its slots go to
	 * @param schedule the cron expression, or {@code every <rate>}
	 * @param zone the zone of the cron expression
	 * @param missedSlots the missed-slot policy
	 * @param lastSlot the last slot taken by any instance, as this instance last saw it, or {@code null}
	 * @param nextSlot the next slot, or {@code null} if the schedule has no more
	 * @param paused whether it is paused on every instance ({@link RecurringJobs#pause(String)}), {@code null} when
	 * Redis did not answer
	 * @param lastSlotTakenBy the instance that took the last slot ({@code application@host:pid}), {@code null} when
	 * unknown (none yet, or taken by a version that did not record it)
	 */
	public record RecurringDescriptor(String queue, String schedule, String zone, String missedSlots,
			@Nullable Instant lastSlot, @Nullable Instant nextSlot, @Nullable Boolean paused,
			@Nullable String lastSlotTakenBy) {

		/**
		 * A job whose last slot's taker is not known.
		 * @param queue the queue its slots go to
		 * @param schedule the cron expression, or {@code every <rate>}
		 * @param zone the zone of the cron expression
		 * @param missedSlots the missed-slot policy
		 * @param lastSlot the last slot taken by any instance, as this instance last saw it, or {@code null}
		 * @param nextSlot the next slot, or {@code null} if the schedule has no more
		 * @param paused whether it is paused on every instance, {@code null} when not known
		 */
		public RecurringDescriptor(String queue, String schedule, String zone, String missedSlots,
				@Nullable Instant lastSlot, @Nullable Instant nextSlot, @Nullable Boolean paused) {
			this(queue, schedule, zone, missedSlots, lastSlot, nextSlot, paused, null);
		}

		/**
		 * A job whose pause is not known.
		 * @param queue the queue its slots go to
		 * @param schedule the cron expression, or {@code every <rate>}
		 * @param zone the zone of the cron expression
		 * @param missedSlots the missed-slot policy
		 * @param lastSlot the last slot taken by any instance, as this instance last saw it, or {@code null}
		 * @param nextSlot the next slot, or {@code null} if the schedule has no more
		 */
		public RecurringDescriptor(String queue, String schedule, String zone, String missedSlots,
				@Nullable Instant lastSlot, @Nullable Instant nextSlot) {
			this(queue, schedule, zone, missedSlots, lastSlot, nextSlot, null, null);
		}

		static RecurringDescriptor of(RecurringJobInfo job, @Nullable Boolean paused) {
			return new RecurringDescriptor(job.spec().queue(), describeSchedule(job.spec()), job.spec().zone().getId(),
					job.spec().missedSlots().name(), job.lastSlot(), job.nextSlot(), paused, job.lastSlotTakenBy());
		}

	}

	/**
	 * @param spec a recurring job's spec
	 * @return its schedule as people read it: the cron expression, or {@code every <rate>} such as {@code every 5m}
	 */
	public static String describeSchedule(RecurringJobSpec spec) {
		Duration rate = spec.fixedRate();
		return (spec.cron() != null || rate == null) ? spec.describe() : "every " + Durations.format(rate);
	}

	/**
	 * @param name the queue
	 * @param stats its stats
	 * @param deadLetters its oldest dead letters, at most 20, with payloads and headers only if shown
	 * @param batches batches whose members have not all finished, at most 20 (as many as one bounded read finds: see
	 * {@link RedisQueue#batchesInProgress(int)}; {@link StatsDescriptor#batchesInProgress()} counts them all)
	 * @param groups in a queue with groups, the 20 with the most ready messages (see {@link RedisQueue#groupStats(int)});
	 * empty otherwise
	 */
	public record QueueDescriptor(String name, StatsDescriptor stats, List<DeadLetterDescriptor> deadLetters,
			List<BatchDescriptor> batches, List<GroupDescriptor> groups) {
	}

	/**
	 * One dead letter as the endpoint and the console show it: its payload and headers only when shown
	 * ({@code management.endpoint.rediskitqueue.show-values} here, {@code redis-kit.console.show-payloads} in the
	 * console).
	 * @param id its message id
	 * @param reason why it was dead-lettered
	 * @param deadLetteredAt when, on the server's clock
	 * @param deliveries how often it was delivered
	 * @param priority its priority ({@code high}, {@code normal}, {@code low}), which a redrive gives it back
	 * @param payloadBytes its payload's size in bytes (UTF-8), shown or not
	 * @param payload its payload as stored, {@code null} when not shown
	 * @param headers its headers (a tenant, a user id: the message's data as much as its payload), {@code null} when
	 * not shown
	 */
	public record DeadLetterDescriptor(String id, String reason, Instant deadLetteredAt, int deliveries,
			String priority, int payloadBytes, @Nullable String payload, @Nullable Map<String, String> headers) {

		/**
		 * @param letter a dead letter
		 * @param shown whether its payload and headers are shown
		 * @return its descriptor
		 */
		public static DeadLetterDescriptor of(DeadLetter letter, boolean shown) {
			return new DeadLetterDescriptor(letter.id(), letter.reason(), letter.deadLetteredAt(),
					letter.deliveries(), letter.priority().name().toLowerCase(Locale.ROOT),
					letter.payload().getBytes(StandardCharsets.UTF_8).length, shown ? letter.payload() : null,
					shown ? letter.headers() : null);
		}

	}

	/**
	 * A batch whose members have not all finished.
	 * @param id the batch id
	 * @param total its members
	 * @param succeeded members acknowledged
	 * @param failed members that failed for good
	 * @param pending members not finished yet
	 * @param createdAt when it was enqueued, on the server's clock
	 */
	public record BatchDescriptor(String id, long total, long succeeded, long failed, long pending,
			Instant createdAt) {

		static BatchDescriptor of(BatchProgress progress) {
			return new BatchDescriptor(progress.batchId(), progress.total(), progress.succeeded(), progress.failed(),
					progress.pending(), progress.createdAt());
		}

	}

	/**
	 * One group of a queue with groups, with its limits as the queue's spec sets them (a group's own, else the
	 * groups' default).
	 * @param group its name, {@code null} when not shown
	 * @param ready its messages waiting for their turn
	 * @param inFlight its messages delivered and not settled
	 * @param maxInFlight most of its messages in flight across consumers, 0 for no limit
	 * @param rateLimit most of its messages claimed per {@code rateLimitPeriod}, 0 for no limit
	 * @param rateLimitPeriod the window of {@code rateLimit}, as properties take it ({@code 1s})
	 */
	public record GroupDescriptor(@Nullable String group, long ready, long inFlight, int maxInFlight, long rateLimit,
			String rateLimitPeriod) {
	}

	/**
	 * @param delayed not due yet
	 * @param ready due, waiting for a consumer
	 * @param inFlight delivered, not settled
	 * @param dead in the dead-letter queue
	 * @param oldestDueAgeMillis how long the oldest ready message has been due
	 * @param paused whether the queue is paused (for every listener)
	 * @param waitingParents flows' parents waiting for their children (in none of the states above)
	 * @param batchesInProgress batches whose members have not all finished
	 */
	public record StatsDescriptor(long delayed, long ready, long inFlight, long dead, long oldestDueAgeMillis,
			boolean paused, long waitingParents, long batchesInProgress) {

		/**
		 * @param stats a queue's stats
		 * @param paused whether it is paused
		 * @return their descriptor
		 */
		public static StatsDescriptor of(QueueStats stats, boolean paused) {
			return new StatsDescriptor(stats.delayed(), stats.ready(), stats.inFlight(), stats.dead(),
					stats.oldestDueAge().toMillis(), paused, stats.waitingParents(), stats.batchesInProgress());
		}

	}

}

package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.rediskit.support.Background;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import io.rediskit.support.Stages;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * Recurring jobs on the delay queue: each job enqueues one {@link RecurringSlot} message per slot of its schedule
 * (a cron expression in a zone, or a fixed rate) into its queue, where any listener consumes it with the queue's
 * at-least-once delivery, retries and dead letters. Every instance of the application schedules every job, so a
 * dead or stopped instance costs nothing while another runs.
 * <p>
 * <b>At most once per slot, across instances.</b> Slots are decided on the Redis server's clock: one script call
 * per slot and instance enqueues the slot only if it is due by the server's {@code TIME} and later than the
 * job's last slot, which the script keeps beside the queue ({@code <prefix>queue:{<queue>}:recurring:<job>}) and
 * only moves forward; the message id is the slot's time ({@code <job>@<ISO-8601>}), deduplicated by the queue. A
 * slot's message is thus enqueued once whatever the number of instances and however skewed their clocks: each
 * instance times its calls by the server's clock as its last reply showed it. Its delivery is then the queue's:
 * at least once (a handler that dies mid-slot is redelivered), so a job's handler should be idempotent.
 * <p>
 * <b>Missed slots.</b> A slot enqueued later than the job's grace after its time (every instance down, stopped
 * or cut off from Redis) is missed, and the job's {@link MissedSlots} policy says which missed slots are still
 * enqueued; the others are counted as skipped ({@link RecurringJobListener#onSlotsSkipped}). A job whose record
 * does not exist yet (its first start, or a downtime longer than the record's month-long retention) starts with
 * its first slot after the start, and nothing before counts as missed.
 * <p>
 * <b>Who took a slot.</b> Beside the record of the last slot, the script keeps the name of the instance that took it
 * ({@link #setInstanceName}); {@link #jobs()} reports it. The record itself keeps its format, so instances of an older
 * version go on reading it, and a slot they take shows as taken by an unknown instance.
 * <p>
 * <b>Limits.</b> A failover that loses the record's last write (asynchronous replication) can enqueue that slot
 * again. A slot is a point in time: a job whose handler runs longer than the time between slots gets overlapping
 * runs unless its listener's concurrency is 1.
 * <p>
 * <b>Threads.</b> The slots are timed on the scheduler of the {@link Background} given ({@link #setBackground}), or
 * else of the queue registry's; a tick only sends a script asynchronously and never blocks.
 */
public class RecurringJobs implements SmartLifecycle, AutoCloseable {

	/** Most missed slots {@link MissedSlots#RUN_EACH} enqueues after one downtime: the most recent ones. */
	public static final int MAX_CATCH_UP = 100;

	/** The lifecycle phase: after the queue registry, so that its slots find the queues ready. */
	public static final int PHASE = QueueRegistry.PHASE + 1;

	private static final Log logger = LogFactory.getLog(RecurringJobs.class);

	private final RecurringScripts scripts;

	private final QueueRegistry queues;

	private final Listeners<RecurringJobListener> listeners;

	private final Map<String, RecurringJob> jobs = new LinkedHashMap<>();

	private @Nullable Background given;

	private volatile String instanceName = "";

	private volatile boolean running;

	/**
	 * Creates the jobs' entry point; it starts nothing.
	 * @param scripts runs the scripts, the queue registry's executor
	 * @param queues the queues the jobs enqueue to
	 * @param listeners told of slots enqueued and skipped, in order
	 */
	public RecurringJobs(ScriptExecutor scripts, QueueRegistry queues,
			List<? extends RecurringJobListener> listeners) {
		this.scripts = new RecurringScripts(Objects.requireNonNull(scripts, "scripts must not be null"));
		this.queues = Objects.requireNonNull(queues, "queues must not be null");
		this.listeners = Listeners.of("recurring job", listeners);
	}

	/**
	 * Gives the threads that time the slots; set them before {@link #start()}.
	 * @param background the application's, shared by every primitive, or {@code null} for the queue registry's
	 */
	public synchronized void setBackground(@Nullable Background background) {
		if (this.running) {
			throw new IllegalStateException("The background of the recurring jobs must be set before they start");
		}
		this.given = background;
	}

	/**
	 * Names this instance in the record of the slots it takes, which every instance's
	 * {@link RecurringJobInfo#lastSlotTakenBy()} then reads; unnamed ({@code ""}), it records the slots it takes as
	 * taken by an unknown instance.
	 * @param name how operators know this instance, such as {@code application@host:pid}, at most 256 characters
	 */
	public void setInstanceName(String name) {
		Objects.requireNonNull(name, "name must not be null");
		this.instanceName = (name.length() > 256) ? name.substring(0, 256) : name;
	}

	/**
	 * Adds a job; it starts with the others, or at once if they run.
	 * @param name the job's name, 1 to 64 letters, digits, {@code -} or {@code _}; part of each message's id
	 * @param spec the job
	 * @throws IllegalArgumentException if the name is invalid or its queue unknown
	 * @throws SpecConflictException if a job of that name was added with another spec
	 */
	public synchronized void add(String name, RecurringJobSpec spec) {
		Names.requireValid("recurring job", name);
		Objects.requireNonNull(spec, "spec must not be null");
		RecurringJob existing = this.jobs.get(name);
		if (existing != null) {
			if (existing.spec.equals(spec)) {
				return;
			}
			throw new SpecConflictException("Recurring job", name, "as added first", existing.spec, "as added now",
					spec, "Give each job a name of its own.");
		}
		RedisQueue<RecurringSlot> queue = this.queues.get(spec.queue(), RecurringSlot.class);
		String recordKey = this.queues.getKeyNaming().key("queue", spec.queue(), "recurring:" + name);
		ThrottledLog failures = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Recurring job '" + name + "' cannot reach Redis");
		RecurringJob job = new RecurringJob(name, spec, (ScriptedRedisQueue<RecurringSlot>) queue, this.scripts,
				recordKey, this.listeners, failures, () -> this.instanceName);
		this.jobs.put(name, job);
		if (this.running) {
			job.start(scheduler());
		}
	}

	/** How long a pause is kept when nobody resumes the job: a key without a TTL would outlive a job removed. */
	public static final Duration PAUSE_KEPT = Duration.ofDays(365);

	/**
	 * Pauses a job on every instance, until {@link #resume(String)} (or {@link #PAUSE_KEPT}): while paused, its due
	 * slots are passed over (they become its last slot, nothing is enqueued), so resuming starts with the next slot
	 * and catches up none of those. One round trip; the flag lives in Redis beside the job's record, so restarts
	 * stay paused. A message already enqueued is delivered (pause its queue to stop that).
	 * @param name a job added here
	 * @throws IllegalArgumentException if no job of that name was added
	 */
	public void pause(String name) {
		Stages.join(this.scripts.pause(job(name).recordKey(), "pause", PAUSE_KEPT.toMillis()));
	}

	/**
	 * Resumes a paused job on every instance: its next slot is enqueued as usual. One round trip.
	 * @param name a job added here
	 * @throws IllegalArgumentException if no job of that name was added
	 */
	public void resume(String name) {
		Stages.join(this.scripts.pause(job(name).recordKey(), "resume", 0));
	}

	/**
	 * @param name a job added here
	 * @return whether it is paused, as Redis has it (one read-only round trip)
	 * @throws IllegalArgumentException if no job of that name was added
	 */
	public boolean isPaused(String name) {
		return Stages.join(this.scripts.pause(job(name).recordKey(), "read", 0));
	}

	/**
	 * Enqueues one run of a job now, outside its schedule and whether or not it is paused: a message like a slot's,
	 * its {@link RecurringSlot#slot()} the time of the trigger on this instance's clock, its id that of a slot at
	 * that time. The job's record and next slot are left alone. One round trip (the queue's enqueue).
	 * @param name a job added here
	 * @return the message's id
	 * @throws IllegalArgumentException if no job of that name was added
	 */
	public String trigger(String name) {
		RecurringJob job = job(name);
		Instant now = Instant.ofEpochMilli(System.currentTimeMillis());
		return job.queue().enqueue(QueueEntry.of(new RecurringSlot(name, now)).withId(RecurringSlot.messageId(name, now)));
	}

	private synchronized RecurringJob job(String name) {
		RecurringJob job = this.jobs.get(name);
		if (job == null) {
			throw new IllegalArgumentException("No recurring job is named so");
		}
		return job;
	}

	/** @return every job with its last and next slot as this instance knows them, in the order added */
	public synchronized List<RecurringJobInfo> jobs() {
		List<RecurringJobInfo> infos = new ArrayList<>(this.jobs.size());
		this.jobs.values().forEach((job) -> infos.add(job.info()));
		return infos;
	}

	/** Starts timing every job's slots. */
	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		for (RecurringJob job : this.jobs.values()) {
			job.start(scheduler());
		}
	}

	/** The given threads' scheduler, or the queue registry's, asked for only when a job starts. */
	private TaskScheduler scheduler() {
		return ((this.given != null) ? this.given : this.queues.background()).scheduler();
	}

	/** Stops timing slots; messages enqueued stay in their queues. A later {@link #start()} resumes. */
	@Override
	public synchronized void stop() {
		this.running = false;
		this.jobs.values().forEach(RecurringJob::stop);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public void close() {
		stop();
	}

}

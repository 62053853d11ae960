package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.rediskit.queue.RecurringJobSpec.Schedule;
import io.rediskit.queue.RecurringScripts.Scheduled;
import io.rediskit.queue.RecurringScripts.Slot;
import io.rediskit.support.Expiry;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ThrottledLog;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;

/**
 * The scheduling of one recurring job on this instance: a chain of ticks on the task scheduler, one script call
 * each. A tick offers the slots due since the job's last slot as this instance knows it, up to the server's time
 * as estimated from the last reply (the offset between this JVM's clock and the server's); the script decides on
 * the server's clock and takes each slot once across all instances. The next tick is set for the next slot, on
 * the server's clock translated to this JVM's, so a skewed local clock moves nothing.
 * <p>
 * Missed slots (later than the grace) follow the policy: those not enqueued are passed over in the same call, so
 * the count of skipped slots is told by the one instance whose call passed them.
 */
final class RecurringJob {

	/** Most slots one tick looks at; a longer catch-up takes more ticks, one right after the other. */
	static final int MAX_SLOTS_PER_TICK = 10_000;

	/** Most on-time slots one tick enqueues, so that no script runs long. */
	static final int MAX_ENQUEUED_PER_TICK = 1000;

	/** How long the record of the last slot outlives a call at least; longer downtime is a first start. */
	static final Duration RECORD_RETENTION = Duration.ofDays(31);

	private static final long RETRY_MILLIS = 1000;

	private static final long UNKNOWN = Long.MIN_VALUE;

	final String name;

	final RecurringJobSpec spec;

	private final Schedule schedule;

	private final ScriptedRedisQueue<RecurringSlot> queue;

	private final RecurringScripts scripts;

	private final byte[] recordKey;

	private final Listeners<RecurringJobListener> listeners;

	private final ThrottledLog failures;

	private final Supplier<String> instance;

	private final Object lock = new Object();

	private @Nullable TaskScheduler scheduler;

	private @Nullable ScheduledFuture<?> pending;

	private long generation;

	/** The slot the next plan starts after: the last slot, or the server's time of a first start. */
	private volatile long after = UNKNOWN;

	private volatile long lastSlot = -1;

	private volatile @Nullable String lastSlotTakenBy;

	private volatile long nextSlot = -1;

	private volatile long offsetMillis;

	RecurringJob(String name, RecurringJobSpec spec, ScriptedRedisQueue<RecurringSlot> queue,
			RecurringScripts scripts, String recordKey, Listeners<RecurringJobListener> listeners,
			ThrottledLog failures, Supplier<String> instance) {
		this.name = name;
		this.spec = spec;
		this.schedule = spec.schedule();
		this.queue = queue;
		this.scripts = scripts;
		this.recordKey = QueueScripts.utf8(recordKey);
		this.listeners = listeners;
		this.failures = failures;
		this.instance = instance;
	}

	void start(TaskScheduler scheduler) {
		synchronized (this.lock) {
			this.generation++;
			this.scheduler = scheduler;
			this.after = UNKNOWN;
			schedule(this.generation, System.currentTimeMillis());
		}
	}

	void stop() {
		synchronized (this.lock) {
			this.generation++;
			this.scheduler = null;
			ScheduledFuture<?> future = this.pending;
			if (future != null) {
				future.cancel(false);
			}
			this.pending = null;
		}
	}

	/** @return the job's record of its last slot, beside which its pause flag is kept */
	byte[] recordKey() {
		return this.recordKey;
	}

	/** @return the queue its slots go to */
	ScriptedRedisQueue<RecurringSlot> queue() {
		return this.queue;
	}

	RecurringJobInfo info() {
		long last = this.lastSlot;
		long next = this.nextSlot;
		if (next < 0 && this.after == UNKNOWN) {
			next = this.schedule.next(System.currentTimeMillis());
		}
		return new RecurringJobInfo(this.name, this.spec, (last >= 0) ? Instant.ofEpochMilli(last) : null,
				(next >= 0) ? Instant.ofEpochMilli(next) : null, (last >= 0) ? this.lastSlotTakenBy : null);
	}

	private void schedule(long generation, long localMillis) {
		synchronized (this.lock) {
			TaskScheduler scheduler = this.scheduler;
			if (generation != this.generation || scheduler == null) {
				return;
			}
			this.pending = scheduler.schedule(() -> tick(generation), Instant.ofEpochMilli(localMillis));
		}
	}

	private void tick(long generation) {
		long sent = System.currentTimeMillis();
		Plan plan = (this.after == UNKNOWN) ? Plan.NONE : plan(sent + this.offsetMillis);
		Observation observation = observe(plan);
		CompletionStage<Scheduled> call;
		// In scope while the script is handed over, on this thread only: the driver's command is the enqueue's child.
		try (Observation.Scope scope = observation.isNoop() ? Observation.Scope.NOOP : observation.openScope()) {
			call = this.scripts.schedule(this.queue.keys(), this.recordKey, traced(plan.slots, observation),
					recordMillis(plan), this.queue.keys().channelBytes, null, this.instance.get());
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		call.whenComplete((reply, failure) -> {
			try {
				if (reply != null) {
					Observations.stop(observation, outcome(plan, reply));
				}
				else if (!observation.isNoop()) {
					Observations.stop(observation, "error",
							(failure != null) ? failure : new IllegalStateException("no reply"));
				}
			}
			finally {
				// Whatever an observation handler does, the job's chain of ticks goes on.
				done(generation, plan, sent, reply, failure);
			}
		});
	}

	/**
	 * The tick's enqueue, observed as a caller's is ({@code rediskit.queue.enqueue}, source {@code recurring}), when
	 * it offers a slot to enqueue: a producer observation whose trace context the slots' messages carry, so that
	 * each run's handling is its child. A tick that only passes slots over, or a first start's, enqueues nothing.
	 */
	private Observation observe(Plan plan) {
		Observations observations = this.queue.parts().observations;
		if (observations.isNoop() || plan.slots.stream().noneMatch((slot) -> slot.payload() != null)) {
			return Observation.NOOP;
		}
		return observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, this.spec.queue(),
				ScriptedRedisQueue.SOURCE_RECURRING, Map.of());
	}

	/**
	 * The slots with the observation's trace context in each message's envelope headers, as a caller's enqueue
	 * stores them; the script stores the payload as given. Without a context (nothing traces) they stay bare, as
	 * slots always were, and a message without headers is handled in a trace of its own.
	 */
	private List<Slot> traced(List<Slot> slots, Observation observation) {
		if (observation.isNoop()) {
			return slots;
		}
		Map<String, String> headers = ScriptedRedisQueue.carrier(observation);
		if (headers.isEmpty()) {
			return slots;
		}
		List<Slot> traced = new ArrayList<>(slots.size());
		for (Slot slot : slots) {
			traced.add((slot.payload() != null)
					? new Slot(slot.millis(), slot.id(), this.queue.parts().codec.wrap(slot.payload(), headers, 0))
					: slot);
		}
		return traced;
	}

	/**
	 * How the tick's enqueue ended: {@code enqueued} if a slot was; else {@code taken} if another instance had taken
	 * one (the normal lot of all instances but one), {@code paused} if the job is paused, or {@code not-due} when the
	 * server's clock has the slots still ahead (they are offered again). None is an error.
	 */
	private static String outcome(Plan plan, Scheduled reply) {
		boolean taken = false;
		boolean paused = false;
		for (int i = 0; i < reply.outcomes().length; i++) {
			switch (reply.outcomes()[i]) {
				case Scheduled.ENQUEUED -> {
					return "enqueued";
				}
				case Scheduled.TAKEN -> taken = true;
				case Scheduled.PASSED_OVER -> paused |= plan.slots.get(i).payload() != null;
				default -> {
				}
			}
		}
		return taken ? "taken" : paused ? "paused" : "not-due";
	}

	/** The slots to offer: missed ones by the policy (the rest passed over), then the ones on time. */
	private Plan plan(long serverNow) {
		int keep = switch (this.spec.missedSlots()) {
			case SKIP -> 0;
			case RUN_ONCE -> 1;
			case RUN_EACH -> RecurringJobs.MAX_CATCH_UP;
		};
		long grace = this.spec.grace().toMillis();
		ArrayDeque<Long> missed = new ArrayDeque<>();
		List<Long> onTime = new ArrayList<>();
		long passOver = -1;
		long skipped = 0;
		int looked = 0;
		long slot = this.schedule.next(this.after);
		while (slot >= 0 && slot <= serverNow && looked < MAX_SLOTS_PER_TICK
				&& onTime.size() < MAX_ENQUEUED_PER_TICK) {
			looked++;
			if (serverNow - slot > grace) {
				missed.addLast(slot);
				if (missed.size() > keep) {
					passOver = missed.removeFirst();
					skipped++;
				}
			}
			else {
				onTime.add(slot);
			}
			slot = this.schedule.next(slot);
		}
		if (slot >= 0 && slot <= serverNow && onTime.isEmpty()) {
			// More missed slots follow, so these are not the most recent ones the policy keeps.
			while (!missed.isEmpty()) {
				passOver = missed.removeFirst();
				skipped++;
			}
		}
		List<Slot> slots = new ArrayList<>(missed.size() + onTime.size() + 1);
		if (passOver >= 0) {
			slots.add(new Slot(passOver, RecurringSlot.messageId(this.name, Instant.ofEpochMilli(passOver)), null));
		}
		for (long due : missed) {
			slots.add(slot(due));
		}
		for (long due : onTime) {
			slots.add(slot(due));
		}
		return new Plan(slots, skipped);
	}

	private Slot slot(long millis) {
		Instant time = Instant.ofEpochMilli(millis);
		byte[] payload = this.queue.parts().codec.encode(new RecurringSlot(this.name, time));
		return new Slot(millis, RecurringSlot.messageId(this.name, time), payload);
	}

	/** The record outlives the gap to the slot after the last one offered, twice over, and a month at least. */
	private long recordMillis(Plan plan) {
		long retention = RECORD_RETENTION.toMillis();
		if (!plan.slots.isEmpty()) {
			long last = plan.slots.get(plan.slots.size() - 1).millis();
			long next = this.schedule.next(last);
			if (next > last) {
				retention = Math.max(retention, Math.min(2 * (next - last), Expiry.MAX.toMillis()));
			}
		}
		return retention;
	}

	private void done(long generation, Plan plan, long sent, @Nullable Scheduled reply, @Nullable Throwable failure) {
		long received = System.currentTimeMillis();
		if (reply == null) {
			Throwable cause = (failure != null) ? failure : new IllegalStateException("no reply");
			this.failures.warn(cause, "recurring job '" + this.name + "' tries again in a second");
			this.listeners.notify((l) -> l.onScheduleFailed(this.name, this.spec.queue(), cause));
			schedule(generation, received + RETRY_MILLIS);
			return;
		}
		// The server's time was read about halfway through the round trip.
		this.offsetMillis = reply.serverMillis() - (sent + received) / 2;
		int enqueued = 0;
		long notDue = -1;
		for (int i = 0; i < reply.outcomes().length; i++) {
			Slot slot = plan.slots.get(i);
			switch (reply.outcomes()[i]) {
				case Scheduled.ENQUEUED -> {
					enqueued++;
					Duration lateness = Duration.ofMillis(Math.max(0, reply.serverMillis() - slot.millis()));
					this.listeners.notify((l) -> l.onSlotEnqueued(this.name, this.spec.queue(),
							Instant.ofEpochMilli(slot.millis()), lateness));
				}
				case Scheduled.PASSED_OVER -> this.listeners
					.notify((l) -> l.onSlotsSkipped(this.name, this.spec.queue(), plan.skipped));
				case Scheduled.NOT_DUE -> notDue = (notDue < 0) ? slot.millis() : notDue;
				default -> {
				}
			}
		}
		if (enqueued > 0) {
			int count = enqueued;
			this.queue.parts().listeners.notify((l) -> l.onEnqueued(this.spec.queue(), count));
		}
		if (reply.lastSlot() >= 0) {
			this.lastSlotTakenBy = reply.lastSlotTakenBy();
			this.lastSlot = reply.lastSlot();
			this.after = reply.lastSlot();
		}
		else if (this.after == UNKNOWN) {
			// A first start: the job begins with its first slot after now, nothing before it is missed.
			this.after = reply.serverMillis();
		}
		long next = (notDue >= 0) ? notDue : this.schedule.next(this.after);
		this.nextSlot = next;
		if (next < 0) {
			return;
		}
		schedule(generation, (next <= reply.serverMillis()) ? received : next - this.offsetMillis);
	}

	/** The slots one tick offers, and how many of them it passes over. */
	private record Plan(List<Slot> slots, long skipped) {

		static final Plan NONE = new Plan(List.of(), 0);

	}

}

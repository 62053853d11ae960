package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RecurringJobs} in one JVM against a real server: the slots of a first start, two instances sharing a job,
 * and each missed-slot policy after a downtime.
 */
class RecurringJobsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	QueueRegistry queues;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.queues = QueueTesting.registry(redis);
		this.queues.create("jobs", QueueTesting.fastSpec(), RecurringSlot.class);
	}

	@Test
	void aFirstStartEnqueuesEverySlotAfterItOnce() {
		Recorder recorder = new Recorder();
		long started = serverMillis();
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), this.queues, List.of(recorder))) {
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			jobs.start();
			await("six slots", Duration.ofSeconds(10), () -> recorder.enqueued.size() >= 6);
		}
		List<Long> slots = new ArrayList<>(recorder.enqueued);
		assertThat(slots.get(0)).as("nothing before the first start").isGreaterThan(started);
		for (int i = 1; i < slots.size(); i++) {
			assertThat(slots.get(i)).isEqualTo(slots.get(i - 1) + 100);
		}
		assertThat(recorder.skipped).isEmpty();
		assertThat(redis.server().command("ZCARD", "rk:queue:{jobs}:delayed")).isEqualTo((long) slots.size());
		assertThat(redis.server().command("HEXISTS", "rk:queue:{jobs}:meta",
				"tick@" + Instant.ofEpochMilli(slots.get(0)))).isEqualTo(1L);
	}

	@Test
	void twoInstancesEnqueueEachSlotOnceAndListTheNextRun() {
		Recorder one = new Recorder();
		Recorder two = new Recorder();
		RecurringJobSpec spec = RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(50));
		try (RecurringJobs first = new RecurringJobs(redis.scripts(), this.queues, List.of(one));
				RecurringJobs second = new RecurringJobs(redis.scripts(), this.queues, List.of(two))) {
			first.setInstanceName("first@host:1");
			second.setInstanceName("second@host:2");
			first.add("tick", spec);
			second.add("tick", spec);
			first.start();
			second.start();
			await("twenty slots", Duration.ofSeconds(10), () -> one.enqueued.size() + two.enqueued.size() >= 20);
			RecurringJobInfo info = first.jobs().get(0);
			assertThat(info.name()).isEqualTo("tick");
			assertThat(info.nextSlot()).isNotNull();
			assertThat(info.nextSlot().toEpochMilli() % 50).isZero();
			// Whichever took the last slot this instance saw, it is one of the two, by its name.
			assertThat(info.lastSlot()).isNotNull();
			assertThat(info.lastSlotTakenBy()).isIn("first@host:1", "second@host:2");
		}
		List<Long> slots = new ArrayList<>(one.enqueued);
		slots.addAll(two.enqueued);
		slots.sort(null);
		for (int i = 1; i < slots.size(); i++) {
			assertThat(slots.get(i)).as("each slot once, none left out").isEqualTo(slots.get(i - 1) + 50);
		}
	}

	@Test
	void aPausedJobEnqueuesNoSlotOnAnyInstanceUntilResumedAndATriggerRunsItNow() {
		Recorder recorder = new Recorder();
		RedisQueue<RecurringSlot> queue = this.queues.get("jobs", RecurringSlot.class);
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), this.queues, List.of(recorder));
				RecurringJobs other = new RecurringJobs(redis.scripts(), this.queues, List.of())) {
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			other.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			jobs.start();
			await("a first slot", Duration.ofSeconds(10), () -> !recorder.enqueued.isEmpty());
			other.pause("tick");
			assertThat(jobs.isPaused("tick")).as("on every instance").isTrue();
			long messages = total(queue.stats());
			long pausedAt = serverMillis();
			// Slots keep coming due and become the job's last slot, passed over: nothing is enqueued.
			await("three slots passed over", Duration.ofSeconds(10), () -> {
				Instant last = jobs.jobs().get(0).lastSlot();
				return last != null && last.toEpochMilli() >= pausedAt + 300;
			});
			assertThat(total(queue.stats())).isEqualTo(messages);

			String id = other.trigger("tick");
			assertThat(id).startsWith("tick@");
			assertThat(total(queue.stats())).as("a trigger runs it now, paused or not").isEqualTo(messages + 1);
			assertThat(redis.server().command("HEXISTS", "rk:queue:{jobs}:meta", id)).isEqualTo(1L);

			int before = recorder.enqueued.size();
			jobs.resume("tick");
			assertThat(other.isPaused("tick")).isFalse();
			await("a slot after the resume", Duration.ofSeconds(10), () -> recorder.enqueued.size() > before);
			assertThat(redis.server().command("PTTL", "rk:queue:{jobs}:recurring:tick:paused")).isEqualTo(-2L);
			jobs.pause("tick");
			assertThat((Long) redis.server().command("PTTL", "rk:queue:{jobs}:recurring:tick:paused"))
				.as("a pause is kept a year, not for ever").isPositive().isLessThanOrEqualTo(RecurringJobs.PAUSE_KEPT.toMillis());
			assertThatIllegalArgumentException().isThrownBy(() -> jobs.pause("unknown"));
		}
	}

	private static long total(QueueStats stats) {
		return stats.delayed() + stats.ready() + stats.inFlight() + stats.dead();
	}

	@Test
	void aJobNameHasOneSpec() {
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), this.queues, List.of())) {
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(100)));
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> jobs.add("tick", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(200))))
				.withMessageContaining("'tick'");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> jobs.add("other", RecurringJobSpec.fixedRate("unknown", Duration.ofMillis(200))))
				.withMessageContaining("unknown");
		}
	}

	/**
	 * A downtime of ten slots of 2 s: the instance starts 0.8 to 1.5 s after the tenth, which is past the grace of
	 * 0.5 s, so all ten are missed and none is on time; then the slot after them is on time.
	 */
	@ParameterizedTest
	@EnumSource(MissedSlots.class)
	void missedSlotsAfterADowntimeFollowThePolicy(MissedSlots policy) {
		long rate = 2000;
		long now = serverMillis();
		while (now % rate < 800 || now % rate > 1500) {
			await("the server's time 0.8 s into a slot", Duration.ofSeconds(5),
					() -> serverMillis() % rate >= 800 && serverMillis() % rate <= 1500);
			now = serverMillis();
		}
		long latest = now / rate * rate;
		long last = latest - 10 * rate;
		redis.server().command("SET", "rk:queue:{jobs}:recurring:report", Long.toString(last), "PX", "600000");
		Recorder recorder = new Recorder();
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), this.queues, List.of(recorder))) {
			jobs.add("report", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(rate))
				.withGrace(Duration.ofMillis(500))
				.withMissedSlots(policy));
			jobs.start();
			await("the next slot, on time", Duration.ofSeconds(10),
					() -> recorder.enqueued.contains(latest + rate));
		}
		List<Long> expected = new ArrayList<>();
		long skipped = switch (policy) {
			case SKIP -> 10;
			case RUN_ONCE -> {
				expected.add(latest);
				yield 9;
			}
			case RUN_EACH -> {
				for (long slot = last + rate; slot <= latest; slot += rate) {
					expected.add(slot);
				}
				yield 0;
			}
		};
		expected.add(latest + rate);
		assertThat(recorder.enqueued).containsExactlyElementsOf(expected);
		assertThat(recorder.skipped.stream().mapToLong(Long::longValue).sum()).isEqualTo(skipped);
		assertThat(redis.server().command("ZCARD", "rk:queue:{jobs}:delayed")).isEqualTo((long) expected.size());
	}

	/**
	 * A downtime of 150 hourly slots under run-each: the {@value RecurringJobs#MAX_CATCH_UP} most recent are
	 * enqueued, oldest first, and the 50 before them skipped and counted.
	 */
	@Test
	void runEachCatchesUpOnTheHundredMostRecentMissedSlotsOnly() {
		long rate = Duration.ofHours(1).toMillis();
		// Past the grace of the latest slot, so that it is missed too rather than on time.
		await("the server's time 2 s past a slot", Duration.ofSeconds(5), () -> serverMillis() % rate > 2000);
		long latest = serverMillis() / rate * rate;
		long last = latest - 150 * rate;
		redis.server().command("SET", "rk:queue:{jobs}:recurring:export", Long.toString(last), "PX", "600000");
		Recorder recorder = new Recorder();
		try (RecurringJobs jobs = new RecurringJobs(redis.scripts(), this.queues, List.of(recorder))) {
			jobs.add("export", RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(rate))
				.withGrace(Duration.ofSeconds(1))
				.withMissedSlots(MissedSlots.RUN_EACH));
			jobs.start();
			await("the catch-up", Duration.ofSeconds(10), () -> recorder.enqueued.contains(latest));
		}
		List<Long> expected = new ArrayList<>();
		for (long slot = latest - (RecurringJobs.MAX_CATCH_UP - 1) * rate; slot <= latest; slot += rate) {
			expected.add(slot);
		}
		assertThat(recorder.enqueued).containsExactlyElementsOf(expected);
		assertThat(recorder.skipped.stream().mapToLong(Long::longValue).sum()).isEqualTo(50);
		assertThat(redis.server().command("ZCARD", "rk:queue:{jobs}:delayed")).isEqualTo(100L);
	}

	static long serverMillis() {
		@SuppressWarnings("unchecked")
		List<String> time = (List<String>) redis.server().command("TIME");
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	static void await(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
			}
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
	}

	/** Records the slots enqueued and the counts skipped, in order. */
	static final class Recorder implements RecurringJobListener {

		final Queue<Long> enqueued = new ConcurrentLinkedQueue<>();

		final Queue<Long> skipped = new ConcurrentLinkedQueue<>();

		@Override
		public void onSlotEnqueued(String job, String queue, Instant slot, Duration lateness) {
			this.enqueued.add(slot.toEpochMilli());
		}

		@Override
		public void onSlotsSkipped(String job, String queue, long count) {
			this.skipped.add(count);
		}

	}

}

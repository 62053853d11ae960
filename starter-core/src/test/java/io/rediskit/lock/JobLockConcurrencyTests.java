package io.rediskit.lock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link JobLock} across application instances, each a JVM of its own ({@link JobLockWorker}) with a scheduled
 * job: with skewed clocks no slot runs twice and no trigger skips a lock nobody holds or keeps, a holder killed
 * with {@code kill -9} frees the job after lock-at-most, and the watchdog keeps a run longer than its period.
 */
class JobLockConcurrencyTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final long PERIOD = 200;

	private static final long AT_LEAST = 130;

	private static final long MAX_SKEW = 50;

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	/**
	 * Triggers up to {@code MAX_SKEW} apart fire for the same slot. The workers tell when each attempt was sent and
	 * answered, and when each run's end was sent and confirmed, on the monotonic clock that all processes of the
	 * machine share; each such pair bounds when Redis saw the call, so the test checks what the lock promises,
	 * however late the loaded machine made any call:
	 * <ul>
	 * <li>a run starts neither before the run before it ended nor within lock-at-least (130 ms: above the skew and
	 * a reply's allowed delay, below the period) of that run's start, so the triggers of one slot run it once;</li>
	 * <li>an attempt is skipped only while a run holds the lock or keeps it for its lock-at-least: the key a run
	 * leaves never outlives both its end and its lock-at-least.</li>
	 * </ul>
	 * That every slot runs is not promised: a run holds the lock until its end reaches Redis, and a worker the
	 * machine stalls between its run and its end keeps the next slot's triggers out on every instance (as CI saw
	 * once: a release sent 1.5 s after its start, while three triggers skipped).
	 */
	@Test
	void threeInstancesWithSkewedClocksRunEachSlotOnce() throws Exception {
		assumeFaketime();
		int runs = 40;
		List<JobLockWorker.Handle> workers = new ArrayList<>();
		try {
			long started = System.nanoTime();
			for (long skew : new long[] { 0, MAX_SKEW / 2, MAX_SKEW }) {
				workers.add(JobLockWorker.start(skew, "schedule", Integer.toString(redis.server().port()), "three",
						Long.toString(PERIOD), Long.toString(AT_LEAST), Integer.toString(runs)));
			}
			for (JobLockWorker.Handle worker : workers) {
				// The times compared below are only comparable if the workers read this JVM's clock.
				assertThat(worker.next(Duration.ofSeconds(90))).startsWith("ready ")
					.satisfies((ready) -> assertThat(Long.parseLong(ready.substring(6))).isBetween(started,
							System.nanoTime()));
			}
			for (JobLockWorker.Handle worker : workers) {
				worker.send("go");
			}
			List<Attempt> attempts = new ArrayList<>();
			List<String> transcript = new ArrayList<>();
			for (JobLockWorker.Handle worker : workers) {
				for (String line : worker.until("done", Duration.ofSeconds(90))) {
					transcript.add(workers.indexOf(worker) + ": " + line);
					if (!line.equals("done")) {
						attempts.add(Attempt.parse(workers.indexOf(worker) + ": " + line));
					}
				}
			}
			String all = String.join("\n", transcript);
			assertThat(attempts).as(all).noneMatch(Attempt::failed);
			List<Attempt> ran = attempts.stream()
				.filter(Attempt::ran)
				.sorted(Comparator.comparingLong(Attempt::fencingToken))
				.toList();
			// Each slot's triggers that were answered in time ran it once.
			assertThat(ran.stream().filter(Attempt::onTime).collect(Collectors.groupingBy(Attempt::slot,
					Collectors.counting())))
				.as(all)
				.allSatisfy((slot, count) -> assertThat(count).as("runs of slot " + slot).isEqualTo(1));
			// A run started after the one before it ended, and lock-at-least after its start: the start is between
			// sending and the reply, and the server's clock counts in whole ms.
			long atLeast = TimeUnit.MILLISECONDS.toNanos(AT_LEAST - 2);
			for (int i = 1; i < ran.size(); i++) {
				Attempt before = ran.get(i - 1);
				Attempt after = ran.get(i);
				assertThat(after.replied()).as("%s started after %s ended%n%s", after, before, all)
					.isGreaterThan(before.closing());
				assertThat(after.replied() - before.sent()).as("%s started %s ms after %s%n%s", after,
						TimeUnit.NANOSECONDS.toMillis(after.replied() - before.sent()), before, all)
					.isGreaterThanOrEqualTo(atLeast);
			}
			// A skip found a run that had started, and had neither surely ended nor surely passed its lock-at-least.
			long kept = TimeUnit.MILLISECONDS.toNanos(AT_LEAST + 2);
			List<Attempt> skipped = attempts.stream().filter((attempt) -> !attempt.ran()).toList();
			for (Attempt skip : skipped) {
				assertThat(ran).as("a run that held or kept the lock when %s tried it%n%s", skip, all)
					.anyMatch((run) -> run.sent() < skip.replied()
							&& skip.sent() < Math.max(run.closed(), run.replied() + kept));
			}
			// Else this run tested nothing: most slots ran, and triggers found the lock kept by a run that had ended.
			assertThat(ran.stream().map(Attempt::slot).distinct().count()).as(all).isGreaterThan(runs / 2);
			assertThat(skipped.stream()
				.filter((skip) -> ran.stream()
					.anyMatch((run) -> run.closed() < skip.sent() && skip.replied() < run.sent() + atLeast)))
				.as(all)
				.hasSizeGreaterThan(runs / 8);
		}
		finally {
			workers.forEach(JobLockWorker.Handle::close);
		}
	}

	@Test
	void aHolderKilledMidRunFreesTheJobAfterLockAtMost() throws Exception {
		String port = Integer.toString(redis.server().port());
		try (LockRegistry registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults(), List.of(), Clock.systemUTC());
				JobLockWorker.Handle holder = JobLockWorker.start(0, "hold", port, "killed", "1500")) {
			JobLock lock = registry.getJobLock("killed");
			assertThat(holder.next(Duration.ofSeconds(60))).isEqualTo("running");
			long started = Long.parseLong((String) redis.server().command("HGET", "rk:lock:{killed}", "a"));
			// The key ends lock-at-most after the start (server ms), however the watchdog renewed it.
			long expires = (Long) redis.server().command("PEXPIRETIME", "rk:lock:{killed}");
			assertThat(expires - started).isBetween(1499L, 1501L);
			holder.process.destroyForcibly().waitFor();
			// A run's fencing token is the server's clock in µs at its start: a loaded machine may bring this attempt
			// after lock-at-most, and then only then may it run.
			lock.tryStart(Duration.ZERO, Duration.ofMinutes(1)).ifPresent((run) -> {
				assertThat(run.fencingToken() / 1000).as("the start of a run after the killed holder's")
					.isGreaterThanOrEqualTo(expires - 1);
				run.close();
			});
			awaitCondition("lock-at-most to free the job", Duration.ofSeconds(10),
					() -> Long.valueOf(0).equals(redis.server().command("EXISTS", "rk:lock:{killed}")));
			try (JobLock.Run run = lock.tryStart(Duration.ZERO, Duration.ofMinutes(1)).orElseThrow()) {
				assertThat(run.fencingToken() / 1000).isGreaterThanOrEqualTo(expires - 1);
			}
		}
	}

	@Test
	void aRunLongerThanTheWatchdogPeriodKeepsTheLock() throws Exception {
		String port = Integer.toString(redis.server().port());
		try (JobLockWorker.Handle worker = JobLockWorker.start(0, "long", port, "long", "1000", "3000", "60000");
				LockRegistry registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
						LockSpec.defaults(), List.of(), Clock.systemUTC())) {
			assertThat(worker.next(Duration.ofSeconds(60))).isEqualTo("running");
			JobLock lock = registry.getJobLock("long");
			int attempts = 0;
			while (Long.valueOf(1).equals(redis.server().command("EXISTS", "rk:lock:{long}"))) {
				Optional<JobLock.Run> run = lock.tryStart(Duration.ZERO, Duration.ofMinutes(1));
				if (run.isPresent()) {
					// Only fine if the key went between EXISTS and this call because the worker ended its run: it
					// then says "done" below. A lease lost mid-run makes it say "lost".
					run.get().close();
					break;
				}
				attempts++;
				Thread.sleep(50);
			}
			assertThat(worker.next(Duration.ofSeconds(30))).isEqualTo("done");
			// The run lasted three leases, and other instances were kept out all along. (A 300 ms lease was lost once
			// in CI on a machine loaded by other builds: a renewal due every 100 ms had stalled for 300.)
			assertThat(attempts).isGreaterThan(10);
		}
	}

	private static void assumeFaketime() {
		assumeTrue(Files.isExecutable(Path.of("/usr/bin/faketime")),
				"faketime (apt package faketime) skews one instance's clock; .ci/run installs it");
	}

	/**
	 * A worker's line about one trigger: {@code ran <slot> <timing> <sent> <replied> <closing> <closed> <fencing
	 * token>}, {@code skipped <slot> <timing> <sent> <replied>} or {@code failed <slot> <exception>} (see
	 * {@link JobLockWorker}), prefixed with the worker's index; times in ns of {@link System#nanoTime()}.
	 */
	private record Attempt(String line, boolean ran, boolean failed, long slot, boolean onTime, long sent,
			long replied, long closing, long closed, long fencingToken) {

		static Attempt parse(String line) {
			String[] parts = line.split(" ");
			String kind = parts[1];
			long slot = Long.parseLong(parts[2]);
			if (kind.equals("failed")) {
				return new Attempt(line, false, true, slot, false, 0, 0, 0, 0, 0);
			}
			boolean ran = kind.equals("ran");
			if (!ran && !kind.equals("skipped")) {
				throw new IllegalArgumentException("Not a worker's line about a trigger: " + line);
			}
			return new Attempt(line, ran, false, slot, parts[3].equals("on-time"), Long.parseLong(parts[4]),
					Long.parseLong(parts[5]), ran ? Long.parseLong(parts[6]) : 0, ran ? Long.parseLong(parts[7]) : 0,
					ran ? Long.parseLong(parts[8]) : 0);
		}

		@Override
		public String toString() {
			return this.line;
		}

	}

}

package io.rediskit.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerJvm;
import io.rediskit.testsupport.WorkerLifetime;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * An application instance for the {@link JobLock} tests, in its own JVM (optionally under {@code faketime}).
 * <ul>
 * <li>{@code schedule <port> <name> <period ms> <at-least ms> <runs>}: warms up (connection, scripts, JIT),
 * prints {@code ready <now>} and waits for a line on standard input; then a job triggered, like a cron
 * expression, at every multiple of the period on this JVM's wall clock, by a Spring {@link ThreadPoolTaskScheduler}.
 * Each trigger tries the lock and prints {@code ran <slot> <timing> <sent> <replied> <closing> <closed> <fencing
 * token>}, {@code skipped <slot> <timing> <sent> <replied>} or {@code failed <slot> <exception>}. The slot is the
 * period's index on this JVM's clock; the timing is {@code on-time} when the reply came within a fifth of a period
 * of the trigger's time, else {@code slow} (the loaded machine delayed the trigger or the call). The times are
 * {@link System#nanoTime()} when the attempt was sent, when its reply came, when the run's end was sent and when
 * Redis confirmed it: on Linux {@code CLOCK_MONOTONIC}, one clock for all processes of the machine, which
 * {@code faketime} leaves alone, so the test compares the times of different workers ({@code now} in
 * {@code ready} lets it check that the clock is its own). After the given number of periods it prints
 * {@code done}.</li>
 * <li>{@code hold <port> <name> <at-most ms>}: starts a run, prints {@code running} and waits to be killed.</li>
 * <li>{@code long <port> <name> <watchdog ms> <run ms> <at-most ms>}: a run longer than several watchdog
 * periods; prints {@code running}, then {@code done} or {@code lost}.</li>
 * </ul>
 * Every worker ends itself after {@link #LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class JobLockWorker {

	/** The longest a worker lives; every test that starts one finishes well within it. */
	static final Duration LIFETIME = Duration.ofMinutes(3);

	private JobLockWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("JobLockWorker", LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		LockSpec spec = args[0].equals("long") ? LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])))
				: LockSpec.defaults();
		LockRegistry registry = new LockRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				spec, List.of(), Clock.systemUTC());
		JobLock lock = registry.getJobLock(args[2]);
		switch (args[0]) {
			case "schedule" -> schedule(lock, registry.getJobLock(args[2] + "-warm-up"), Long.parseLong(args[3]),
					Long.parseLong(args[4]), Integer.parseInt(args[5]));
			case "hold" -> {
				lock.tryStart(Duration.ZERO, Duration.ofMillis(Long.parseLong(args[3]))).orElseThrow();
				System.out.println("running");
				Thread.sleep(LIFETIME.toMillis());
			}
			case "long" -> {
				JobLock.Run run = lock.tryStart(Duration.ZERO, Duration.ofMillis(Long.parseLong(args[5]))).orElseThrow();
				System.out.println("running");
				Thread.sleep(Long.parseLong(args[4]));
				try {
					run.close();
					System.out.println("done");
				}
				catch (LockLeaseLostException ex) {
					System.out.println("lost");
				}
			}
			default -> throw new IllegalArgumentException(args[0]);
		}
		System.out.flush();
		registry.close();
		connections.destroy();
		System.exit(0);
	}

	private static void schedule(JobLock lock, JobLock warmUp, long period, long atLeast, int runs) throws Exception {
		// The first calls connect, load the scripts and compile the code: not what the test measures.
		for (int i = 0; i < 200; i++) {
			warmUp.tryStart(Duration.ZERO, Duration.ofSeconds(10)).ifPresent(JobLock.Run::close);
		}
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(1);
		scheduler.initialize();
		System.out.println("ready " + System.nanoTime());
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		long first = (System.currentTimeMillis() / period + 3) * period;
		for (int i = 0; i < runs; i++) {
			long slotTime = first + i * period;
			long slot = slotTime / period;
			scheduler.schedule(() -> {
				try {
					long sent = System.nanoTime();
					// Lock-at-most far above any stall of a loaded machine: the test compares runs with the one before.
					Optional<JobLock.Run> run = lock.tryStart(Duration.ofMillis(atLeast), Duration.ofMinutes(1));
					long replied = System.nanoTime();
					String timing = (System.currentTimeMillis() - slotTime <= period / 5) ? "on-time" : "slow";
					if (run.isEmpty()) {
						System.out.println("skipped " + slot + " " + timing + " " + sent + " " + replied);
						return;
					}
					long closing = System.nanoTime();
					run.get().close();
					System.out.println("ran " + slot + " " + timing + " " + sent + " " + replied + " " + closing + " "
							+ System.nanoTime() + " " + run.get().fencingToken());
				}
				catch (RuntimeException ex) {
					System.out.println("failed " + slot + " " + ex);
				}
			}, java.time.Instant.ofEpochMilli(slotTime));
		}
		Thread.sleep(first + (runs + 1) * period - System.currentTimeMillis());
		scheduler.shutdown();
		scheduler.getScheduledExecutor().awaitTermination(10, TimeUnit.SECONDS);
		System.out.println("done");
	}

	/**
	 * Starts a worker JVM with the test class path.
	 * @param skewMillis how far its clock is set ahead with {@code faketime}; 0 for the real clock
	 */
	static Handle start(long skewMillis, String... args) throws IOException {
		return new Handle(WorkerJvm.of(JobLockWorker.class, args).clockSkew(Duration.ofMillis(skewMillis)).start());
	}

	/** A worker's process and its output lines, read on a thread of their own so that every read is bounded. */
	static final class Handle implements AutoCloseable {

		final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		Handle(Process process) {
			this.process = process;
			Thread reader = new Thread(() -> {
				try (BufferedReader output = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
					for (String line = output.readLine(); line != null; line = output.readLine()) {
						this.lines.add(line);
					}
				}
				catch (IOException ex) {
					// The process is gone: the lines read so far are all there is.
				}
				this.lines.add("<exit>");
			}, "job-lock-worker-output");
			reader.setDaemon(true);
			reader.start();
		}

		/** @return the next line, failing after the timeout or when the worker ended */
		String next(Duration timeout) throws InterruptedException {
			String line = this.lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (line == null || line.equals("<exit>")) {
				throw new AssertionError("The worker said " + ((line == null) ? "nothing for " + timeout : "no more"));
			}
			return line;
		}

		/** @return every line up to {@code last}, which is included */
		List<String> until(String last, Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			List<String> seen = new ArrayList<>();
			String line;
			do {
				line = next(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
				seen.add(line);
			}
			while (!line.equals(last));
			return seen;
		}

		void send(String line) throws IOException {
			this.process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
			this.process.getOutputStream().flush();
		}

		@Override
		public void close() {
			this.process.destroyForcibly();
		}

	}

}

package io.rediskit.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * An application instance for the recurring-job tests, in its own JVM (optionally under {@code faketime}):
 * {@code <port> <job> <rate ms>} schedules the job at that fixed rate into the queue {@code jobs} on a Spring
 * {@link ThreadPoolTaskScheduler}, running each missed slot, prints {@code ready}, then {@code enqueued <slot ms>}
 * for each slot this instance enqueued, until standard input closes or the test kills it.
 */
public final class RecurringWorker {

	private RecurringWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("RecurringWorker", Duration.ofMinutes(3));
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		QueueRegistry queues = new QueueRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		queues.create("jobs", QueueTesting.fastSpec(), RecurringSlot.class);
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setPoolSize(1);
		scheduler.initialize();
		RecurringJobs jobs = new RecurringJobs(ScriptExecutor.of(connections), queues,
				List.of(new RecurringJobListener() {

					@Override
					public void onSlotEnqueued(String job, String queue, Instant slot, Duration lateness) {
						System.out.println("enqueued " + slot.toEpochMilli());
					}

					@Override
					public void onScheduleFailed(String job, String queue, Throwable failure) {
						System.out.println("failed " + failure);
					}

				}));
		jobs.setBackground(Background.of(scheduler, null));
		jobs.add(args[1], RecurringJobSpec.fixedRate("jobs", Duration.ofMillis(Long.parseLong(args[2])))
			.withMissedSlots(MissedSlots.RUN_EACH));
		jobs.start();
		System.out.println("ready");
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		jobs.close();
		scheduler.shutdown();
		queues.close();
		connections.destroy();
		System.exit(0);
	}

	/**
	 * Starts a worker JVM with the test class path.
	 * @param skewMillis how far its clock is set ahead with {@code faketime}; 0 for the real clock
	 */
	static Handle start(long skewMillis, String... args) throws IOException {
return new Handle(WorkerJvm.of(RecurringWorker.class, args).clockSkew(Duration.ofMillis(skewMillis)).start());
	}

	/** A worker's process and its output lines, read on a thread of their own so that every read is bounded. */
	static final class Handle implements AutoCloseable {

		final Process process;

		final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

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
			}, "recurring-worker-output");
			reader.setDaemon(true);
			reader.start();
		}

		/** Waits for {@code ready}, failing after the timeout. */
		void awaitReady(Duration timeout) throws InterruptedException {
			String line = this.lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (!"ready".equals(line)) {
				throw new AssertionError("The worker said " + line + " instead of ready");
			}
		}

		/** @return the slots this worker enqueued so far */
		/** @return the schedule calls that failed, as the worker printed them */
		List<String> failures() {
			return this.lines.stream().filter((line) -> line.startsWith("failed ")).toList();
		}

		List<Long> enqueued() {
			List<Long> slots = new ArrayList<>();
			for (String line : this.lines) {
				if (line.startsWith("enqueued ")) {
					slots.add(Long.parseLong(line.substring(9)));
				}
			}
			return slots;
		}

		@Override
		public void close() {
			this.process.destroyForcibly();
		}

	}

}

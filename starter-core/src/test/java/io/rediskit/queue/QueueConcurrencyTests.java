package io.rediskit.queue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.DeliveryLogChecker.Report;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three consumer JVMs started with {@link ProcessBuilder}, one of them {@code kill -9}'d three times mid-run and
 * restarted; {@link DeliveryLogChecker} reads their delivery logs. 100 000 messages with random delays up to
 * 8 s by default (about 25 s on a 2-core machine); {@code -Drediskit.queue.messages=<n>} changes the count.
 */
class QueueConcurrencyTests {

	static final int MESSAGES = Integer.getInteger("rediskit.queue.messages", 50_000);

	static final int WORKERS = 3;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	@TempDir
	Path logs;

	QueueRegistry registry;

	List<Process> processes = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = QueueTesting.registry(redis);
	}

	@AfterEach
	void tearDown() {
		this.processes.forEach(Process::destroyForcibly);
		this.registry.close();
	}

	@Test
	void threeConsumerJvmsOneKilledThreeTimesLoseNothing() throws Exception {
		RedisQueue<Job> queue = this.registry.create("multi", QueueSpec.defaults(), Job.class);
		List<String> ids = enqueueWithRandomDelays(queue, MESSAGES, Duration.ofSeconds(8));
		List<Path> killedLogs = new ArrayList<>();
		List<Path> cleanLogs = new ArrayList<>();
		Process[] workers = new Process[WORKERS];
		Path[] current = new Path[WORKERS];
		for (int w = 0; w < WORKERS; w++) {
			current[w] = this.logs.resolve("worker-" + w + "-0.log");
			workers[w] = startWorker(current[w]);
		}
		long start = System.nanoTime();
		int kills = 0;
		while (kills < 3) {
			long target = (long) MESSAGES * (kills + 1) / 5;
			while (MESSAGES - queue.stats().total() < target) {
				Thread.sleep(50);
				assertThat(System.nanoTime() - start).as("progress").isLessThan(TimeUnit.MINUTES.toNanos(5));
			}
			workers[0].destroyForcibly().waitFor();
			killedLogs.add(current[0]);
			kills++;
			current[0] = this.logs.resolve("worker-0-" + kills + ".log");
			workers[0] = startWorker(current[0]);
		}
		while (queue.stats().total() > 0) {
			Thread.sleep(100);
			assertThat(System.nanoTime() - start).as("drained").isLessThan(TimeUnit.MINUTES.toNanos(5));
		}
		for (int w = 0; w < WORKERS; w++) {
			workers[w].getOutputStream().close();
			assertThat(workers[w].waitFor(60, TimeUnit.SECONDS)).isTrue();
			cleanLogs.add(current[w]);
		}
		List<Log> all = new ArrayList<>();
		for (Path log : killedLogs) {
			all.add(new Log(Files.readAllLines(log, StandardCharsets.UTF_8), true));
		}
		for (Path log : cleanLogs) {
			all.add(new Log(Files.readAllLines(log, StandardCharsets.UTF_8), false));
		}
		Report report = DeliveryLogChecker.check(ids, all);
		System.out.printf("queue multi-JVM: %d messages, %d deliveries, %d redelivered after 3 kills, %.1f s%n",
				MESSAGES, report.delivered(), report.redelivered().size(), (System.nanoTime() - start) / 1e9);
		assertThat(report.violations()).as("checker").isEmpty();
		assertThat(queue.stats().dead()).isZero();
	}

	static List<String> enqueueWithRandomDelays(RedisQueue<Job> queue, int count, Duration maxDelay) {
		List<CompletableFuture<List<String>>> batches = new ArrayList<>();
		for (int from = 0; from < count; from += 1000) {
			List<QueueEntry<Job>> entries = new ArrayList<>();
			for (int i = from; i < Math.min(count, from + 1000); i++) {
				entries.add(QueueEntry.of(new Job("m", i))
					.withDelay(Duration.ofMillis(ThreadLocalRandom.current().nextLong(maxDelay.toMillis()))));
			}
			batches.add(queue.enqueueAllAsync(entries).toCompletableFuture());
		}
		List<String> ids = new ArrayList<>(count);
		for (CompletableFuture<List<String>> batch : batches) {
			ids.addAll(batch.join());
		}
		return ids;
	}

	private Process startWorker(Path log) throws Exception {
		Process worker = QueueWorker.start("consume", Integer.toString(redis.server().port()), "multi", log.toString(),
				"8", "3000");
		this.processes.add(worker);
		String line = readLine(worker.getInputStream());
		assertThat(line).isEqualTo("ready");
		return worker;
	}

	static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int b;
		while ((b = in.read()) != -1 && b != '\n') {
			line.append((char) b);
		}
		return line.toString();
	}

}

package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.queue.WorkflowLogChecker.Flow;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flows and batches consumed by three JVMs, one {@code kill -9}'d twice mid-run and restarted, checked by
 * {@link WorkflowLogChecker} from the consumers' logs: no parent before its last child's ack, none twice, each
 * reading all its children's results; each batch's callbacks exactly those of its outcome, each enqueued once.
 */
class QueueWorkflowConcurrencyTests {

	static final int FLOWS = 300;

	static final int CHILDREN = 4;

	static final int BATCHES = 200;

	static final int MEMBERS = 5;

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
	void threeConsumerJvmsOneKilledTwiceRunEachParentAfterItsChildrenAndEachCallbackOnce() throws Exception {
		RedisQueue<Job> queue = this.registry.create("workflows", QueueSpec.defaults(), Job.class);
		List<Flow> flows = new ArrayList<>();
		Set<String> acked = new HashSet<>();
		Set<String> failing = new HashSet<>();
		Process[] workers = new Process[WORKERS];
		Path[] current = new Path[WORKERS];
		List<Path> killedLogs = new ArrayList<>();
		for (int w = 0; w < WORKERS; w++) {
			current[w] = this.logs.resolve("worker-" + w + "-0.log");
			workers[w] = startWorker(current[w]);
		}
		// Enqueued while the consumers run, so that parents become due while their children are being processed.
		int total = FLOWS * (CHILDREN + 1) + BATCHES * MEMBERS;
		for (int f = 0; f < FLOWS; f++) {
			List<QueueEntry<Job>> children = new ArrayList<>();
			long sum = 0;
			for (int c = 0; c < CHILDREN; c++) {
				children.add(QueueEntry.of(new Job("child", f * 10 + c)));
				sum += f * 10 + c;
			}
			QueueFlow.FlowIds ids = queue.enqueueFlow(QueueFlow.of(QueueEntry.of(new Job("parent", f)), children));
			flows.add(new Flow(ids.parentId(), ids.childIds(), sum));
			acked.add(ids.parentId());
			acked.addAll(ids.childIds());
		}
		for (int b = 0; b < BATCHES; b++) {
			String batch = "batch-" + b;
			boolean fails = b % 4 == 0;
			List<QueueEntry<Job>> members = new ArrayList<>();
			for (int m = 0; m < MEMBERS; m++) {
				String id = batch + "-" + m;
				boolean failure = fails && m == 2;
				members.add(QueueEntry.of(new Job(failure ? "fail" : "member", m)).withId(id));
				(failure ? failing : acked).add(id);
			}
			queue.enqueueBatch(QueueBatch.of(members).withId(batch)
				.onComplete(QueueEntry.of(new Job("callback", b)))
				.onSuccess(QueueEntry.of(new Job("callback", b)))
				.onDeath(QueueEntry.of(new Job("callback", b))));
			acked.add(batch + ":complete");
			acked.add(batch + (fails ? ":death" : ":success"));
		}
		long start = System.nanoTime();
		for (int kills = 0; kills < 2; kills++) {
			long target = (long) total * (kills + 1) / 3;
			while (total - unfinished(queue) < target) {
				Thread.sleep(20);
				assertThat(System.nanoTime() - start).as("progress").isLessThan(TimeUnit.MINUTES.toNanos(5));
			}
			workers[0].destroyForcibly().waitFor();
			killedLogs.add(current[0]);
			current[0] = this.logs.resolve("worker-0-" + (kills + 1) + ".log");
			workers[0] = startWorker(current[0]);
		}
		while (unfinished(queue) > 0) {
			Thread.sleep(100);
			assertThat(System.nanoTime() - start).as("drained").isLessThan(TimeUnit.MINUTES.toNanos(5));
		}
		List<Log> all = new ArrayList<>();
		for (Path log : killedLogs) {
			all.add(new Log(Files.readAllLines(log, StandardCharsets.UTF_8), true));
		}
		for (int w = 0; w < WORKERS; w++) {
			workers[w].getOutputStream().close();
			assertThat(workers[w].waitFor(60, TimeUnit.SECONDS)).isTrue();
			all.add(new Log(Files.readAllLines(current[w], StandardCharsets.UTF_8), false));
		}
		List<String> violations = WorkflowLogChecker.check(flows, acked, failing, all);
		System.out.printf("queue workflows multi-JVM: %d flows, %d batches, %d deliveries, 2 kills, %.1f s%n", FLOWS,
				BATCHES, all.stream().mapToLong((log) -> log.lines().stream().filter((l) -> l.startsWith("D ")).count())
					.sum(),
				(System.nanoTime() - start) / 1e9);
		assertThat(violations).as("checker").isEmpty();
		assertThat(queue.stats().dead()).isEqualTo(failing.size());
		for (int b = 0; b < BATCHES; b++) {
			BatchProgress progress = queue.batchProgress("batch-" + b);
			assertThat(progress.finished()).isTrue();
			assertThat(progress.failed()).isEqualTo((b % 4 == 0) ? 1 : 0);
		}
	}

	/** Messages not finished: delayed, ready or in flight (a waiting parent is released with its last child's ack). */
	private static long unfinished(RedisQueue<Job> queue) {
		QueueStats stats = queue.stats();
		return stats.total() - stats.dead();
	}

	private Process startWorker(Path log) throws Exception {
		Process worker = QueueWorker.start("workflow", Integer.toString(redis.server().port()), "workflows",
				log.toString(), "8", "3000");
		this.processes.add(worker);
		assertThat(QueueConcurrencyTests.readLine(worker.getInputStream())).isEqualTo("ready");
		return worker;
	}

}

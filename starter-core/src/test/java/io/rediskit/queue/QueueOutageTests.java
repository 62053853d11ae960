package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.DeliveryLogChecker.Report;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The queue under faults: a consumer paused past its visibility, a server paused, its scripts flushed, killed
 * and restarted (with an append-only file, so that its data survives), a command error.
 */
class QueueOutageTests {

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.standalone("--appendonly", "yes",
			"--appendfsync", "always");

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	QueueRegistry registry;

	List<QueueListenerContainer<?>> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		servers.flushAll();
		this.server = servers.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		this.registry = new QueueRegistry(ScriptExecutor.of(this.connections), this.connections, KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.registry.close();
		this.connections.destroy();
		if (!this.server.isAlive()) {
			this.server.restart();
		}
		else {
			this.server.resume();
		}
	}

	@Test
	void aConsumerPausedPastItsVisibilityLosesTheMessageToAnotherAndItsAckIsRejected() throws Exception {
		RedisQueue<Job> queue = this.registry.create("paused", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMillis(1000)), Job.class);
		String id = queue.enqueue(new Job("p", 1));
		Process holder = QueueWorker.start("hold", Integer.toString(this.server.port()), "paused", "1000");
		try {
			assertThat(QueueConcurrencyTests.readLine(holder.getInputStream())).isEqualTo("got " + id);
			signal(holder, "STOP");
			List<QueueMessage<Job>> taken = queue.poll(1, Duration.ofSeconds(20));
			assertThat(taken).hasSize(1);
			assertThat(taken.get(0).id()).isEqualTo(id);
			assertThat(taken.get(0).deliveryCount()).isEqualTo(2);
			taken.get(0).ack();
			signal(holder, "CONT");
			holder.getOutputStream().write('\n');
			holder.getOutputStream().flush();
			assertThat(QueueConcurrencyTests.readLine(holder.getInputStream())).isEqualTo("ack=stale");
			assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(queue.stats().total()).isZero();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	@Test
	void aHandlerThatReturnedIsNotRetriedWhenItsAckCannotReachRedis() throws Exception {
		LettuceConnectionFactory impatient = TestConnections.lettuce(this.server, Duration.ofMillis(500));
		List<String> events = new CopyOnWriteArrayList<>();
		QueueRegistry registry = new QueueRegistry(ScriptExecutor.of(impatient), impatient, KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(new QueueEventListener() {

					@Override
					public void onSettleFailed(String queue, String operation) {
						events.add("settle-failed " + operation);
					}

					@Override
					public void onRetried(String queue, Duration delay) {
						events.add("retried");
					}

					@Override
					public void onDeadLettered(String queue, String reason) {
						events.add("dead-lettered");
					}

				}), (name) -> null);
		List<Integer> deliveries = new CopyOnWriteArrayList<>();
		try {
			RedisQueue<Job> queue = registry.create("ack-outage", QueueTesting.fastSpec()
				.withVisibilityTimeout(Duration.ofSeconds(2)), Job.class);
			queue.enqueue(new Job("a", 1));
			QueueListenerContainer<Job> container = registry.createContainer(queue, (message) -> {
				deliveries.add(message.deliveryCount());
				if (deliveries.size() == 1) {
					// The work is done; Redis stalls before the ack.
					this.server.pause();
				}
			}, 1);
			this.containers.add(container);
			container.start();
			try {
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
				while (!events.contains("settle-failed ack") && System.nanoTime() < deadline) {
					Thread.sleep(20);
				}
				assertThat(events).containsExactly("settle-failed ack");
			}
			finally {
				this.server.resume();
			}
			awaitEmpty(queue, Duration.ofSeconds(30));
			// The ack that timed out may still run when Redis resumes; otherwise the visibility brings it back.
			assertThat(deliveries).hasSizeBetween(1, 2);
			assertThat(events).containsOnly("settle-failed ack");
			assertThat(queue.deadLetters(10)).isEmpty();
		}
		finally {
			this.containers.forEach(QueueListenerContainer::stop);
			this.containers.clear();
			registry.close();
			impatient.destroy();
		}
	}

	@Test
	void scriptFlushesAndAPausedServerUnderLoadApplyEveryClaimAndAckOnce() throws Exception {
		RedisQueue<Job> queue = this.registry.create("flush", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofMinutes(2)), Job.class);
		Queue<String> log = new ConcurrentLinkedQueue<>();
		start(queue, log, 4);
		List<String> ids = new ArrayList<>();
		for (int round = 0; round < 6; round++) {
			ids.addAll(QueueConcurrencyTests.enqueueWithRandomDelays(queue, 500, Duration.ofMillis(800)));
			if (round % 2 == 0) {
				this.server.command("SCRIPT", "FLUSH");
			}
			else {
				// Shorter than the command timeout: commands wait and complete.
				this.server.pause();
				Thread.sleep(1000);
				this.server.resume();
			}
			Thread.sleep(300);
		}
		awaitEmpty(queue, Duration.ofSeconds(60));
		stopAll();
		Report report = DeliveryLogChecker.check(ids, List.of(new Log(List.copyOf(log), false)));
		assertThat(report.violations()).isEmpty();
		assertThat(report.redelivered()).as("no claim applied twice, no delivery lost").isEmpty();
	}

	@Test
	void aServerKilledAndRestartedUnderLoadLosesNothing() throws Exception {
		RedisQueue<Job> queue = this.registry.create("restart", QueueTesting.fastSpec()
			.withVisibilityTimeout(Duration.ofSeconds(3)), Job.class);
		Queue<String> log = new ConcurrentLinkedQueue<>();
		start(queue, log, 4);
		List<String> ids = new ArrayList<>(
				QueueConcurrencyTests.enqueueWithRandomDelays(queue, 3000, Duration.ofSeconds(4)));
		Thread.sleep(1000);
		this.server.kill();
		Thread.sleep(500);
		this.server.restart();
		awaitEmpty(queue, Duration.ofSeconds(120));
		stopAll();
		Report report = DeliveryLogChecker.check(ids, List.of(new Log(List.copyOf(log), false)));
		// Deliveries whose ack failed in the outage may come again; nothing may be lost or acked twice.
		assertThat(report.violations()).isEmpty();
	}

	@Test
	void callsFailWithADataAccessExceptionWhileTheServerIsDown() {
		RedisQueue<Job> queue = this.registry.create("down", QueueTesting.fastSpec(), Job.class);
		this.server.kill();
		long start = System.nanoTime();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> queue.enqueue(new Job("d", 1)));
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(queue::stats);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(COMMAND_TIMEOUT.multipliedBy(3));
	}

	@Test
	void aCommandErrorIsThrownAsItIs() {
		RedisQueue<Job> queue = this.registry.create("broken", QueueTesting.fastSpec(), Job.class);
		this.server.command("SET", "rk:queue:{broken}:meta", "not a hash");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> queue.enqueue(new Job("x", 1)))
			.havingRootCause().withMessageContaining("WRONGTYPE");
	}

	private void start(RedisQueue<Job> queue, Queue<String> log, int concurrency) {
		QueueListenerContainer<Job> container = this.registry.createContainer(queue, (message) -> {
			log.add("D " + message.id() + " " + message.deliveryCount());
			log.add("a " + message.id());
			try {
				message.ack();
				log.add("A " + message.id());
			}
			catch (StaleDeliveryException ex) {
				log.add("S " + message.id());
			}
			catch (RuntimeException ex) {
				log.add("F " + message.id());
			}
		}, concurrency);
		this.containers.add(container);
		container.start();
	}

	private void stopAll() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.containers.clear();
	}

	private static void awaitEmpty(RedisQueue<?> queue, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				if (queue.stats().total() == 0) {
					return;
				}
			}
			catch (DataAccessException ex) {
				// Still reconnecting.
			}
			assertThat(System.nanoTime()).as("queue drained in time").isLessThan(deadline);
			Thread.sleep(100);
		}
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(process.pid())).start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).isZero();
	}

}

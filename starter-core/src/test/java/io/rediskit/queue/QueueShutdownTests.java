package io.rediskit.queue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A consumer stopped, and its registry closed, while the queue's wake-up subscription waits for a server that does
 * not answer ({@code SIGSTOP}): the consumer's start waits for the subscription's confirmation, up to its bound;
 * neither the container's stop nor the registry's close may wait for it. The subscription piece's own faults are
 * {@code SubscriptionsTests}'.
 */
class QueueShutdownTests {

	/** A hang detector only: far beyond the documented bound of a stop. */
	static final Duration HANG = Duration.ofSeconds(60);

	static final Duration BOUND = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@Test
	void aConsumerAndItsRegistryStopWhileTheWakeUpSubscriptionWaitsForRedis() throws Exception {
		RedisServerProcess server = redis.server();
		LettuceConnectionFactory connections = TestConnections.lettuce(server, Duration.ofSeconds(2));
		QueueRegistry queues = new QueueRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				JsonMapper.builder().build(), List.of(), (name) -> null);
		Thread starting = null;
		try {
			RedisQueue<Job> queue = queues.create("stopped-subscribing", QueueTesting.fastSpec(), Job.class);
			QueueListenerContainer<Job> container = queues.createContainer(queue, (message) -> {
			}, 1);
			container.setShutdownTimeout(Duration.ofSeconds(1));
			// Connected first: without the shared connection the container's subscription fails at once.
			try (RedisConnection connection = connections.getConnection()) {
				connection.ping();
			}
			server.pause();
			starting = new Thread(container::start, "starting-consumer");
			starting.setDaemon(true);
			starting.start();
			Thread subscriber = starting;
			awaitCondition("the consumer to subscribe its wake-ups", () -> in(subscriber, "await"));
			assertTimeoutPreemptively(HANG, () -> {
				container.stop();
				queues.close();
			}, () -> "stop hangs:\n" + threads("starting-consumer", "redis-kit"));
		}
		finally {
			server.resume();
			if (starting != null) {
				starting.interrupt();
			}
			connections.destroy();
		}
	}

	private static void awaitCondition(String what, java.util.function.BooleanSupplier condition)
			throws InterruptedException {
		long deadline = System.nanoTime() + BOUND.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + BOUND + " waiting for " + what);
			}
			Thread.sleep(5);
		}
	}

	private static boolean in(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals(QueueSignals.class.getName())
					&& frame.getMethodName().equals(method));
	}

	private static String threads(String... prefixes) {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> Arrays.stream(prefixes).anyMatch(entry.getKey().getName()::startsWith))
			.map((entry) -> entry.getKey().getName() + "\n" + Arrays.stream(entry.getValue())
				.map((frame) -> "\tat " + frame)
				.collect(Collectors.joining("\n")))
			.collect(Collectors.joining("\n"));
	}

}

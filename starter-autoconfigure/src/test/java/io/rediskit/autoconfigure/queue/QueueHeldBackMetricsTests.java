package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code rediskit.queue.held.back} on a real server, through a listener container: each claim that a limit holds
 * back counts the messages it left once, and a claim the limit admitted part of is not followed by a claim at once
 * that the limit must refuse (it counted the same messages a second time).
 */
class QueueHeldBackMetricsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private LettuceConnectionFactory connections;

	private QueueRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()));
		this.connections.afterPropertiesSet();
		this.connections.start();
		this.registry = new QueueRegistry(ScriptExecutor.of(this.connections), this.connections,
				KeyNaming.defaults(), JsonMapper.builder().build(), List.of(new MicrometerQueueListener(this.meters)),
				(name) -> null);
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
		this.connections.destroy();
	}

	@Test
	void aMessageHeldBackByTheInFlightLimitIsCountedOncePerClaimThatLeftIt() throws Exception {
		// One in flight at a time; a poll interval longer than the test, so that every claim after the first is
		// the one a settled delivery brings.
		QueueSpec spec = QueueSpec.defaults().withMaxInFlight(1).withPollInterval(Duration.ofSeconds(30));
		RedisQueue<String> queue = this.registry.create("held", spec, String.class);
		for (int i = 0; i < 5; i++) {
			queue.enqueue("job-" + i);
		}
		Queue<QueueMessage<String>> delivered = new ConcurrentLinkedQueue<>();
		Semaphore finish = new Semaphore(0);
		QueueListenerContainer<String> container = this.registry.createContainer(queue, (message) -> {
			delivered.add(message);
			if (!finish.tryAcquire(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("not released");
			}
		}, 5);
		container.start();
		try {
			for (int k = 1; k <= 5; k++) {
				int expected = k;
				awaitTrue(() -> delivered.size() == expected);
				finish.release();
			}
			awaitTrue(() -> queue.stats().total() == 0);
		}
		finally {
			container.stop();
		}
		// Claims of 5 wanted with room for 1: 4, then 3, 2 and 1 left behind, the last claim none.
		assertThat(heldBack()).isEqualTo(4 + 3 + 2 + 1);
		assertThat(this.meters.get("rediskit.queue.delivered").counter().count()).isEqualTo(5);
	}

	private double heldBack() {
		return this.meters.find("rediskit.queue.held.back").counters().stream().mapToDouble(Counter::count).sum();
	}

	private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() < deadline).as("condition met within 20 s").isTrue();
			Thread.sleep(5);
		}
	}

}

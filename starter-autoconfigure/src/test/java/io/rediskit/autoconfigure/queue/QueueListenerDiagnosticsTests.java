package io.rediskit.autoconfigure.queue;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a {@code @QueueListener} tells its developer when it goes wrong: a failing handler's exception in the log, and
 * two methods reading one queue as different types refused at startup. Against a real server.
 */
@ExtendWith(OutputCaptureExtension.class)
class QueueListenerDiagnosticsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				QueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void aFailingHandlersExceptionIsLoggedWithItsStackTraceOnEveryDeliveryAndTheLastSaysItIsDeadLettered(
			CapturedOutput output) {
		this.runner.withUserConfiguration(Failing.class)
			.withPropertyValues("redis-kit.queue.queues.orders.poll-interval=100ms",
					"redis-kit.queue.queues.orders.max-deliveries=2",
					"redis-kit.queue.queues.orders.initial-backoff=10ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisQueue<Order> orders = context.getBean(QueueRegistry.class).get("orders", Order.class);
				String id = orders.enqueue(new Order(13));
				QueueTestingAwait.await(() -> orders.stats().dead() == 1);
				// The dead letter is written by the script the failed delivery's retry sends, after the log line.
				assertThat(output.getOut()).contains("Queue 'orders' handler failed on delivery 1 of 2 of message " + id
						+ "; it is delivered again in ")
					.contains("Queue 'orders' handler failed on delivery 2 of 2 of message " + id
							+ "; it is dead-lettered")
					.contains("java.lang.IllegalStateException: unlucky order 13")
					.contains("at " + Failing.class.getName() + ".cancel(");
			});
	}

	@Test
	void twoListenersReadingOneQueueAsDifferentTypesFailStartupNamingBoth() {
		this.runner.withUserConfiguration(Failing.class, OtherType.class)
			.withPropertyValues("redis-kit.queue.queues.orders.poll-interval=100ms")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(QueueTestingAwait.messages(context.getStartupFailure())).contains("@QueueListener(queue = \"orders\")")
					.contains("queue \"orders\" is consumed as " + Order.class.getName())
					.contains("and here as " + Invoice.class.getName())
					.contains("one queue has one payload type");
			});
	}


	record Order(long id) {
	}

	record Invoice(String number, long cents) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Failing {

		@QueueListener(queue = "orders")
		void cancel(Order order) {
			throw new IllegalStateException("unlucky order " + order.id());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherType {

		@QueueListener(queue = "orders")
		void bill(Invoice invoice) {
		}

	}

}

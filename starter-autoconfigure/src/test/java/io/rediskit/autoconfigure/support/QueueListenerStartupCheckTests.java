package io.rediskit.autoconfigure.support;

import java.util.List;
import java.util.Map;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @QueueListener} is checked when the context starts, through the same {@link InvalidAnnotationException}
 * and failure analysis as {@code @RateLimited} and {@code @DistributedLock}: each bad method is one line naming
 * the bean, class, method and attribute, and nothing starts consuming.
 */
class QueueListenerStartupCheckTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				QueueAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.queue.queues.emails.max-deliveries=3");

	@Test
	void validListenersStart() {
		this.runner.withBean("good", Good.class)
			.withUserConfiguration(CreatesInCode.class)
			.withPropertyValues("emails.concurrency=3", "redis-kit.queue.queues.counts.max-deliveries=3")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anUnknownQueueOneTypoFromAConfiguredOneSuggestsIt() {
		this.runner.withBean("mistyped", Mistyped.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			// Suggested once, by the registry's message.
			assertThat(analysis.getDescription()).contains("@QueueListener(queue = \"emials\") on"
					+ " Mistyped.onMessage(String): queue \"emials\": No queue named 'emials' (did you mean 'emails'?):"
					+ " configure redis-kit.queue.queues.emials")
				.containsOnlyOnce("did you mean");
		});
	}

	@Test
	void everyBadListenerIsOneLineOfTheFailureAnalysis() {
		this.runner.withBean("bad", Bad.class).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			FailureAnalysis analysis = new InvalidAnnotationFailureAnalyzer().analyze(failure);
			assertThat(analysis).isNotNull();
			String prefix = "bean 'bad' (" + Bad.class.getName() + "): @QueueListener(queue = ";
			assertThat(analysis.getDescription()).startsWith("redis-kit found 8 invalid @QueueListener annotations:")
				.contains(prefix + "\"nowhere\") on Bad.unknownQueue(String): queue \"nowhere\": No queue named"
						+ " 'nowhere': configure redis-kit.queue.queues.nowhere or create it in code first")
				.contains(prefix + "\"emails\") on Bad.twoParameters(String, String): the second parameter must be"
						+ " Map<String, String>, the message's headers; it is java.lang.String")
				.contains(prefix + "\"emails\") on Bad.noParameter(): the method must take one parameter")
				.contains(prefix + "\"emails\") on Bad.rawMessage(QueueMessage): the parameter QueueMessage needs a"
						+ " payload type argument")
				.contains(prefix + "\"emails\") on Bad.words(String): concurrency 'four' is not a number")
				.contains(prefix + "\"emails\") on Bad.tooMany(String): concurrency must be between 1 and 1000, was"
						+ " 5000")
				.contains(prefix + "\"emails\") on Bad.unresolved(String): concurrency '${no.such.property}' does"
						+ " not resolve")
				.contains(prefix + "\"${no.such.queue}\") on Bad.unresolvedQueue(String): queue"
						+ " '${no.such.queue}' does not resolve")
				.doesNotContain("fine(");
			assertThat(analysis.getAction()).contains("@QueueListener method takes one parameter")
				.contains("redis-kit.queue.queues");
			InvalidAnnotationException cause = (InvalidAnnotationException) analysis.getCause();
			assertThat(cause.getAnnotations()).containsExactly("QueueListener");
			assertThat(cause.getFailures()).hasSize(8);
		});
	}

	@Test
	void nothingIsConsumedWhenStartupFails() {
		this.runner.withBean("bad", UnknownOnly.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidAnnotationException.class);
			assertThat(UnknownOnly.calls).isZero();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class CreatesInCode {

		@Bean
		Object auditQueue(QueueRegistry registry) {
			return registry.create("audit", QueueSpec.defaults(), String.class);
		}

	}

	static class Good {

		@QueueListener(queue = "emails", concurrency = "${emails.concurrency}")
		void send(String email) {
		}

		@QueueListener(queue = "audit")
		void audit(QueueMessage<List<String>> entries) {
		}

		// A queue of its own: the listeners of one queue share its payload type.
		@QueueListener(queue = "counts")
		void count(long number) {
		}

		@QueueListener(queue = "emails")
		void traced(String email, Map<String, String> headers) {
		}

	}

	static class Mistyped {

		@QueueListener(queue = "emials")
		void onMessage(String text) {
		}

	}

	static class Bad {

		@QueueListener(queue = "nowhere")
		void unknownQueue(String text) {
		}

		@QueueListener(queue = "emails")
		void twoParameters(String text, String more) {
		}

		@QueueListener(queue = "emails")
		void noParameter() {
		}

		@SuppressWarnings("rawtypes")
		@QueueListener(queue = "emails")
		void rawMessage(QueueMessage message) {
		}

		@QueueListener(queue = "emails", concurrency = "four")
		void words(String text) {
		}

		@QueueListener(queue = "emails", concurrency = "5000")
		void tooMany(String text) {
		}

		@QueueListener(queue = "emails", concurrency = "${no.such.property}")
		void unresolved(String text) {
		}

		@QueueListener(queue = "${no.such.queue}")
		void unresolvedQueue(String text) {
		}

		@QueueListener(queue = "emails")
		void fine(String text) {
		}

	}

	static class UnknownOnly {

		static int calls;

		@QueueListener(queue = "nowhere")
		void consume(String text) {
			calls++;
		}

	}

}

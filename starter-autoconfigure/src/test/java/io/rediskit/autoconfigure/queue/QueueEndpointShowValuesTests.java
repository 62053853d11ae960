package io.rediskit.autoconfigure.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueuePriority;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static io.rediskit.autoconfigure.Askers.user;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code management.endpoint.rediskitqueue.show-values} and {@code .roles}: the {@code rediskitqueue} endpoint shows
 * dead letters' payloads and headers (a message's data) and groups' names (tenants, users) only when they say so, to
 * whom they say, against a real server.
 */
class QueueEndpointShowValuesTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final String PAYLOAD = "{\"user\":\"Zoë\",\"card\":\"4111\"}";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				QueueAutoConfiguration.class, QueueEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitqueue",
				"redis-kit.queue.queues.payments.max-deliveries=3", "redis-kit.queue.queues.tenants.groups.enabled=true",
				"redis-kit.queue.queues.tenants.groups.max-in-flight=2");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void byDefaultADeadLetterKeepsAllButItsPayloadAndHeadersEvenForAnAdmin() {
		this.runner.run((context) -> {
			RedisQueuesEndpoint endpoint = deadLetterOne(context);
			assertThat(context.getBean(QueueEndpointProperties.class).getShowValues())
				.isEqualTo(Show.NEVER);
			for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("ADMIN") }) {
				RedisQueuesEndpoint.DeadLetterDescriptor letter = onlyDeadLetter(endpoint, asker);
				assertThat(letter.payload()).isNull();
				assertThat(letter.headers()).isNull();
				assertThat(letter.id()).isEqualTo("m-1");
				assertThat(letter.reason()).isEqualTo("card declined");
				assertThat(letter.deliveries()).isEqualTo(1);
				assertThat(letter.priority()).isEqualTo("high");
				assertThat(letter.deadLetteredAt()).isNotNull();
				String stored = stored(context);
				assertThat(stored).contains("Zoë");
				assertThat(letter.payloadBytes()).isEqualTo(stored.getBytes(StandardCharsets.UTF_8).length)
					.isGreaterThan(stored.length());
			}
		});
	}

	@Test
	void alwaysShowsThemToAnyone() {
		this.runner.withPropertyValues("management.endpoint.rediskitqueue.show-values=always").run((context) -> {
			RedisQueuesEndpoint.DeadLetterDescriptor letter = onlyDeadLetter(
					deadLetterOne(context), SecurityContext.NONE);
			assertThat(letter.payload()).isEqualTo(stored(context)).contains("Zoë", "4111");
			assertThat(letter.headers()).containsExactly(Map.entry("tenant", "acme"), Map.entry("user", "u-42"));
			assertThat(letter.payloadBytes()).isEqualTo(stored(context).getBytes(StandardCharsets.UTF_8).length);
		});
	}

	@Test
	void whenAuthorizedShowsThemOnlyToAUserInOneOfTheRoles() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitqueue.show-values=when-authorized",
					"management.endpoint.rediskitqueue.roles=OPS,ADMIN")
			.run((context) -> {
				assertThat(context.getBean(QueueEndpointProperties.class).getRoles()).containsExactly("OPS", "ADMIN");
				RedisQueuesEndpoint endpoint = deadLetterOne(context);
				RedisQueuesEndpoint.DeadLetterDescriptor admin = onlyDeadLetter(endpoint, user("ADMIN"));
				assertThat(admin.payload()).isEqualTo(stored(context));
				assertThat(admin.headers()).containsEntry("user", "u-42");
				for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("VIEWER"), user() }) {
					RedisQueuesEndpoint.DeadLetterDescriptor letter = onlyDeadLetter(endpoint, asker);
					assertThat(letter.payload()).isNull();
					assertThat(letter.headers()).isNull();
					assertThat(letter.reason()).isEqualTo("card declined");
				}
			});
	}

	@Test
	void whenAuthorizedWithoutRolesShowsThemToAnyAuthenticatedUserOnly() {
		this.runner.withPropertyValues("management.endpoint.rediskitqueue.show-values=when-authorized")
			.run((context) -> {
				RedisQueuesEndpoint endpoint = deadLetterOne(context);
				assertThat(onlyDeadLetter(endpoint, user()).payload()).isEqualTo(stored(context));
				assertThat(onlyDeadLetter(endpoint, SecurityContext.NONE).payload()).isNull();
				assertThat(onlyDeadLetter(endpoint, SecurityContext.NONE).headers()).isNull();
			});
	}

	@Test
	void groupsKeepTheirCountsAndLimitsAndShowTheirNamesOnlyAsTheSettingSays() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitqueue.show-values=when-authorized",
					"management.endpoint.rediskitqueue.roles=OPS")
			.run((context) -> {
				RedisQueue<String> tenants = context.getBean(QueueRegistry.class).get("tenants", String.class);
				tenants.enqueueAll(java.util.List.of(QueueEntry.of("a").withGroup("tenant-zoe"),
						QueueEntry.of("b").withGroup("tenant-zoe"), QueueEntry.of("c").withGroup("tenant-max")));
				RedisQueuesEndpoint endpoint = context.getBean(RedisQueuesEndpoint.class);
				for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("VIEWER") }) {
					assertThat(endpoint.queue(asker, "tenants").groups()).containsExactly(
							new RedisQueuesEndpoint.GroupDescriptor(null, 2, 0, 2, 0, "1s"),
							new RedisQueuesEndpoint.GroupDescriptor(null, 1, 0, 2, 0, "1s"));
				}
				assertThat(endpoint.queue(user("OPS"), "tenants").groups())
					.extracting(RedisQueuesEndpoint.GroupDescriptor::group)
					.containsExactly("tenant-zoe", "tenant-max");
			});
	}

	@Test
	void anUnknownSettingFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("management.endpoint.rediskitqueue.show-values=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("management.endpoint.rediskitqueue.show-values"));
	}

	private static RedisQueuesEndpoint deadLetterOne(ApplicationContext context) throws InterruptedException {
		RedisQueue<String> payments = context.getBean(QueueRegistry.class).get("payments", String.class);
		payments.enqueue(QueueEntry.of(PAYLOAD)
			.withId("m-1")
			.withPriority(QueuePriority.HIGH)
			.withHeader("tenant", "acme")
			.withHeader("user", "u-42"));
		for (QueueMessage<String> message : payments.poll(1, Duration.ZERO)) {
			message.deadLetter("card declined");
		}
		assertThat(payments.stats().dead()).isEqualTo(1);
		return context.getBean(RedisQueuesEndpoint.class);
	}

	private static String stored(ApplicationContext context) {
		return context.getBean(QueueRegistry.class).get("payments", String.class).deadLetters(1).get(0).payload();
	}

	private static RedisQueuesEndpoint.DeadLetterDescriptor onlyDeadLetter(RedisQueuesEndpoint endpoint,
			SecurityContext asker) {
		return endpoint.queue(asker, "payments").deadLetters().get(0);
	}

}

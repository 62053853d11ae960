package io.rediskit.autoconfigure.lock;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import io.rediskit.autoconfigure.outage.AvailabilityTesting;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real HTTP calls to a {@code @DistributedLock} controller on a server started on a random port; run once per
 * web stack by its subclasses. The lock is taken with a zero wait: busy answers 409 at once, and Redis paused
 * answers 503 after one command timeout.
 */
abstract class LockHttpContract {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final HttpClient http = HttpClient.newHttpClient();

	/** @return the web stack under test */
	abstract WebApplicationType webApplicationType();

	/**
	 * Checks that the context runs the expected stack.
	 * @param context the running application
	 */
	abstract void assertStack(ConfigurableApplicationContext context);

	@Test
	void aBusyLockAnswers409NamingTheGroupNeverTheKey() throws Exception {
		String order = "k".repeat(10_000);
		withApplication((context, base) -> {
			assertThat(post(base, "free").statusCode()).isEqualTo(200);
			RedisLock lock = context.getBean(LockRegistry.class).getLock("orders", order);
			lock.lock();
			try {
				HttpResponse<String> busy = post(base, order);
				assertThat(busy.statusCode()).isEqualTo(409);
				assertThat(busy.headers().firstValue("Content-Type")).hasValueSatisfying(
						(type) -> assertThat(type).startsWith("application/problem+json"));
				Map<?, ?> problem = JsonMapper.builder().build().readValue(busy.body(), Map.class);
				assertThat(problem.get("status")).isEqualTo(409);
				assertThat(problem.get("title")).isEqualTo("Lock not acquired");
				assertThat(problem.get("lock")).isEqualTo("orders");
				assertThat(busy.body()).hasSizeLessThan(500).doesNotContain("kkk");
			}
			finally {
				lock.unlock();
			}
		});
	}

	@Test
	void redisUnavailableWhileAcquiringAnswers503WithRetryAfter() throws Exception {
		withApplication((context, base) -> {
			assertThat(post(base, "before").statusCode()).isEqualTo(200);
			redis.server().pause();
			HttpResponse<String> unavailable;
			try {
				unavailable = post(base, "during");
			}
			finally {
				redis.server().resume();
			}
			assertThat(unavailable.statusCode()).isEqualTo(503);
			assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(unavailable.headers().firstValue("Content-Type")).hasValueSatisfying(
					(type) -> assertThat(type).startsWith("application/problem+json"));
			Map<?, ?> problem = JsonMapper.builder().build().readValue(unavailable.body(), Map.class);
			assertThat(problem.get("status")).isEqualTo(503);
			assertThat(problem.get("title")).isEqualTo("Lock unavailable");
			assertThat(problem.get("lock")).isEqualTo("orders");
			// Neither the key nor the driver's message (host, port, timeout) is shown.
			assertThat(unavailable.body()).doesNotContain("during")
				.doesNotContainIgnoringCase("timed out")
				.doesNotContain(Integer.toString(redis.server().port()));
			// Refused at once until Redis answers the availability PING, sent every second; then served again.
			AvailabilityTesting.awaitAvailable(context);
			assertThat(post(base, "after").statusCode()).isEqualTo(200);
		});
	}

	private void withApplication(ThrowingBiConsumer<ConfigurableApplicationContext, String> calls)
			throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(OrderApplication.class)
			.web(webApplicationType())
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=500ms")
			.run()) {
			assertStack(context);
			assertThat(context.getBean(LockExceptionHandler.class)).isNotNull();
			calls.accept(context, "http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
		}
	}

	private HttpResponse<String> post(String base, String order) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/orders/pay"))
			.header("Content-Type", "text/plain")
			.POST(HttpRequest.BodyPublishers.ofString(order))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	interface ThrowingBiConsumer<T, U> {

		void accept(T first, U second) throws Exception;

	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(OrderController.class)
	static class OrderApplication {

	}

	@RestController
	static class OrderController {

		@DistributedLock(name = "orders", key = "#order", waitTime = "0s")
		@PostMapping("/orders/pay")
		public String pay(@RequestBody String order) {
			return "paid";
		}

	}

}

package io.rediskit.autoconfigure.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real HTTP calls to a {@code @RateLimited} controller on a server started on a random port; run once per web
 * stack by its subclasses. The limiter admits 2 calls per hour with GCRA: the third is rejected, 30 minutes
 * before it could be admitted and an hour before the key is back to full capacity.
 */
abstract class RateLimitHttpContract {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final String CLIENT = "client-secret-42";

	private final HttpClient http = HttpClient.newHttpClient();

	/** @return the web stack under test */
	abstract WebApplicationType webApplicationType();

	/**
	 * Checks that the context runs the expected stack.
	 * @param context the running application
	 */
	abstract void assertStack(ConfigurableApplicationContext context);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void overTheLimitAnswers429WithRetryAfterRateLimitHeadersAndAProblemDetail() throws Exception {
		withApplication(GreetingApplication.class, (base) -> {
			assertThat(get(base, "/greet/ada").statusCode()).isEqualTo(200);
			HttpResponse<String> admitted = get(base, "/greet/ada");
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.body()).isEqualTo("hello ada");

			HttpResponse<String> rejected = get(base, "/greet/ada");
			assertThat(rejected.statusCode()).isEqualTo(429);
			assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying(
					(type) -> assertThat(type).startsWith("application/problem+json"));
			long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
			assertThat(retryAfter).isBetween(1790L, 1800L);
			assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=2;w=3600");
			Matcher rateLimit = Pattern.compile("\"api\";r=0;t=(\\d+)")
				.matcher(rejected.headers().firstValue("RateLimit").orElseThrow());
			assertThat(rateLimit.matches()).isTrue();
			assertThat(Long.parseLong(rateLimit.group(1))).isBetween(3590L, 3600L);

			Map<?, ?> problem = JsonMapper.builder().build().readValue(rejected.body(), Map.class);
			assertThat(problem.get("status")).isEqualTo(429);
			assertThat(problem.get("title")).isEqualTo("Too Many Requests");
			assertThat(problem.get("limiter")).isEqualTo("api");
			assertThat(((Number) problem.get("retryAfterSeconds")).longValue()).isEqualTo(retryAfter);
			assertThat((String) problem.get("detail")).contains("'api'").contains(retryAfter + " seconds");
			// The limited key (here a client token) is never echoed back.
			assertThat(rejected.body()).doesNotContain(CLIENT);
			assertThat(rejected.headers().map().toString()).doesNotContain(CLIENT);

			// Another key has its own count.
			assertThat(get(base, "/greet/ada", "other-client").statusCode()).isEqualTo(200);
		});
	}

	@Test
	void rateLimitHeadersCanBeSwitchedOff() throws Exception {
		withApplication(GreetingApplication.class, (base) -> {
			get(base, "/greet/ada");
			get(base, "/greet/ada");
			HttpResponse<String> rejected = get(base, "/greet/ada");
			assertThat(rejected.statusCode()).isEqualTo(429);
			assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
			assertThat(rejected.headers().firstValue("RateLimit-Policy")).isEmpty();
			assertThat(rejected.headers().firstValue("RateLimit")).isEmpty();
		}, "redis-kit.rate-limit.web.headers.enabled=false");
	}

	@Test
	void theApplicationsOwnExceptionHandlerWins() throws Exception {
		withApplication(UserHandlerApplication.class, (base) -> {
			get(base, "/greet/ada");
			get(base, "/greet/ada");
			HttpResponse<String> rejected = get(base, "/greet/ada");
			assertThat(rejected.statusCode()).isEqualTo(503);
			assertThat(rejected.body()).isEqualTo("slow down, api");
			assertThat(rejected.headers().firstValue("RateLimit-Policy")).isEmpty();
		});
	}

	private void withApplication(Class<?> application, ThrowingConsumer<String> calls, String... properties)
			throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
			.web(webApplicationType())
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(), "redis-kit.rate-limit.limiters.api.limit=2",
					"redis-kit.rate-limit.limiters.api.period=1h")
			.properties(properties)
			.run()) {
			assertStack(context);
			assertThat(context.getBean(RateLimitExceptionHandler.class)).isNotNull();
			calls.accept("http://localhost:" + context.getEnvironment().getProperty("local.server.port"));
		}
	}

	private HttpResponse<String> get(String base, String path) throws Exception {
		return get(base, path, CLIENT);
	}

	private HttpResponse<String> get(String base, String path, String client) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).header("X-Client", client).GET().build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	interface ThrowingConsumer<T> {

		void accept(T value) throws Exception;

	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(GreetingController.class)
	static class GreetingApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ GreetingController.class, UserExceptionHandler.class })
	static class UserHandlerApplication {

	}

	@RestController
	static class GreetingController {

		@RateLimited(name = "api", key = "#client")
		@GetMapping("/greet/{name}")
		public String greet(@PathVariable String name, @RequestHeader("X-Client") String client) {
			return "hello " + name;
		}

	}

	@RestControllerAdvice
	static class UserExceptionHandler {

		@ExceptionHandler(RateLimitExceededException.class)
		ResponseEntity<String> slowDown(RateLimitExceededException ex) {
			return ResponseEntity.status(503).body("slow down, " + ex.getLimiterName());
		}

	}

}

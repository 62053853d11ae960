package io.rediskit.autoconfigure.outage;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.rediskit.lock.DistributedLock;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request that passes a route rule, a {@code @RateLimited} method and a {@code @DistributedLock} while Redis is
 * paused, on Spring MVC and on WebFlux: the requests that find the stall wait one command timeout in all (not one per limiter and lock), the
 * later ones are answered at once, all with the documented 503 and never a 500, and service resumes once Redis
 * answers the availability probe.
 */
class OutageRequestTests {

	/**
	 * Long beside what a request costs on a loaded machine, so that "waited for Redis" (at least one timeout, as
	 * Redis is paused) and "answered at once" are told apart by the clock whatever the load.
	 */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final int CONCURRENT = 32;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final HttpClient http = HttpClient.newHttpClient();

	@ParameterizedTest
	@EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
	void aRequestThroughARuleAnAnnotationAndALockWaitsAtMostOneTimeout(WebApplicationType stack) throws Exception {
		// Spring MVC with a blocking method; WebFlux with a Mono, limited and locked without blocking a thread.
		String path = (stack == WebApplicationType.SERVLET) ? "/api/orders/" : "/api/reactive-orders/";
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(PaymentApplication.class)
			.web(stack)
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(),
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms",
					"redis-kit.outage.probe-interval=200ms", "redis-kit.rate-limit.limiters.rule.limit=1000000",
					"redis-kit.rate-limit.limiters.rule.period=1m", "redis-kit.rate-limit.limiters.method.limit=1000000",
					"redis-kit.rate-limit.limiters.method.period=1m", "redis-kit.rate-limit.web.rules[0].path=/api/**",
					"redis-kit.rate-limit.web.rules[0].key=ip", "redis-kit.rate-limit.web.rules[0].limiter=rule")
			.run()) {
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			assertThat(pay(base, path, 0).statusCode()).isEqualTo(200);
			List<Timed> found;
			List<Timed> later;
			redis.server().pause();
			try {
				found = concurrently(base, path, 1);
				later = concurrently(base, path, 100);
			}
			finally {
				redis.server().resume();
			}
			System.out.printf("outage figures request " + stack + ": first wave max %d ms; %d requests after it, max %d ms%n",
					max(found).toMillis(), later.size(), max(later).toMillis());
			// Rule, annotation and lock: one command timeout in all for the requests that found the stall.
			assertThat(found).extracting(Timed::status).containsOnly(503);
			assertThat(max(found)).isLessThan(COMMAND_TIMEOUT.multipliedBy(18).dividedBy(10));
			// The following ones: answered without waiting for Redis. A request that sent a command to the paused
			// server would take at least one command timeout, so that is the bound (not a guess at how fast a loaded
			// machine answers; docs/reliability.md has the measured figures).
			assertThat(later).extracting(Timed::status).containsOnly(503);
			assertThat(max(later)).isLessThan(COMMAND_TIMEOUT);
			AvailabilityTesting.awaitAvailable(context);
			assertThat(pay(base, path, 1).statusCode()).isEqualTo(200);
		}
	}

	private List<Timed> concurrently(String base, String path, int requestsEach) throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(CONCURRENT);
		try {
			return concurrently(threads, base, path, requestsEach);
		}
		finally {
			threads.shutdownNow();
		}
	}

	private List<Timed> concurrently(ExecutorService threads, String base, String path, int requestsEach)
			throws Exception {
		List<CompletableFuture<List<Timed>>> callers = new ArrayList<>();
		for (int i = 0; i < CONCURRENT; i++) {
			int caller = i;
			callers.add(CompletableFuture.supplyAsync(() -> {
				List<Timed> timed = new ArrayList<>();
				for (int n = 0; n < requestsEach; n++) {
					long started = System.nanoTime();
					try {
						int status = pay(base, path, 1000 + caller).statusCode();
						timed.add(new Timed(status, Duration.ofNanos(System.nanoTime() - started)));
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}
				return timed;
			}, threads));
		}
		List<Timed> all = new ArrayList<>();
		for (CompletableFuture<List<Timed>> caller : callers) {
			all.addAll(caller.get(60, TimeUnit.SECONDS));
		}
		return all;
	}

	private HttpResponse<String> pay(String base, String path, int order) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path + order + "/pay"))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static Duration max(List<Timed> timed) {
		return timed.stream().map(Timed::took).max(Duration::compareTo).orElseThrow();
	}

	private record Timed(int status, Duration took) {
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(PaymentController.class)
	static class PaymentApplication {

	}

	@RestController
	static class PaymentController {

		@RateLimited(name = "method", key = "#id")
		@DistributedLock(name = "orders", key = "#id", waitTime = "0s")
		@PostMapping("/api/orders/{id}/pay")
		public String pay(@PathVariable String id) {
			return "paid";
		}

		@RateLimited(name = "method", key = "#id")
		@DistributedLock(name = "orders", key = "#id", waitTime = "0s")
		@PostMapping("/api/reactive-orders/{id}/pay")
		public Mono<String> payReactive(@PathVariable String id) {
			return Mono.just("paid");
		}

	}

}

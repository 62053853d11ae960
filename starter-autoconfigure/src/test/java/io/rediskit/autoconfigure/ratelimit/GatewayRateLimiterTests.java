package io.rediskit.autoconfigure.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.autoconfigure.outage.AvailabilityTesting;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.testsupport.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.configuration.CompatibilityVerifierAutoConfiguration;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real Spring Cloud Gateway on Reactor Netty, routing to a backend on another loopback port through the
 * {@code RequestRateLimiter} filter with redis-kit's limiter: one route and one limiter (3 per 1000 hours) per
 * algorithm, and two routes whose limiters fail open and closed while Redis is paused. Tagged: the gateway's
 * tests run in a JVM of their own, with Spring Cloud on the class path (see the module's pom).
 */
@Tag("gateway")
class GatewayRateLimiterTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AtomicInteger clients = new AtomicInteger();

	private static DisposableServer backend;

	private static ConfigurableApplicationContext gateway;

	private static String base;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@BeforeAll
	static void start() {
		backend = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.get("/**",
					(request, response) -> response.sendString(Mono.just("backend " + request.uri()))))
			.bindNow();
		List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
				"spring.main.banner-mode=off", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=500ms"));
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			String name = limiterName(algorithm);
			properties.add("redis-kit.rate-limit.limiters." + name + ".algorithm=" + name);
			properties.add("redis-kit.rate-limit.limiters." + name + ".limit=3");
			// A long period: a fixed window that rolled over between the calls would admit a fourth one.
			properties.add("redis-kit.rate-limit.limiters." + name + ".period=1000h");
			route(properties, name, name);
		}
		properties.add("redis-kit.rate-limit.limiters.closed.limit=100");
		properties.add("redis-kit.rate-limit.limiters.closed.period=1s");
		properties.add("redis-kit.rate-limit.limiters.closed.failure-policy=fail-closed");
		route(properties, "closed", "closed");
		properties.add("redis-kit.rate-limit.limiters.open.limit=100");
		properties.add("redis-kit.rate-limit.limiters.open.period=1s");
		route(properties, "open", "open");
		properties.add("redis-kit.rate-limit.limiters.pairs.algorithm=fixed-window");
		properties.add("redis-kit.rate-limit.limiters.pairs.limit=3");
		properties.add("redis-kit.rate-limit.limiters.pairs.period=1000h");
		route(properties, "pairs", "pairs");
		properties.add("spring.cloud.gateway.server.webflux.routes[" + lastRoute(properties)
				+ "].filters[0].args[redis-kit-rate-limiter.permits]=2");
		route(properties, "unnamed", null);
		gateway = new SpringApplicationBuilder(GatewayApplication.class).web(WebApplicationType.REACTIVE)
			.properties(properties.toArray(String[]::new))
			.run();
		base = "http://127.0.0.1:" + gateway.getEnvironment().getProperty("local.server.port");
	}

	private static int lastRoute(List<String> properties) {
		return (int) properties.stream().filter((property) -> property.contains("].id=")).count() - 1;
	}

	private static void route(List<String> properties, String id, @Nullable String limiter) {
		int index = lastRoute(properties) + 1;
		String route = "spring.cloud.gateway.server.webflux.routes[" + index + "].";
		properties.add(route + "id=" + id);
		properties.add(route + "uri=http://127.0.0.1:" + backend.port());
		properties.add(route + "predicates[0]=Path=/" + id + "/**");
		properties.add(route + "filters[0].name=RequestRateLimiter");
		properties.add(route + "filters[0].args[rate-limiter]=#{@redisKitRateLimiter}");
		properties.add(route + "filters[0].args[key-resolver]=#{@clientKeyResolver}");
		if (limiter != null) {
			properties.add(route + "filters[0].args[redis-kit-rate-limiter.limiter]=" + limiter);
		}
	}

	@AfterAll
	static void stop() {
		if (gateway != null) {
			gateway.close();
		}
		if (backend != null) {
			backend.disposeNow();
		}
	}

	private static String limiterName(RateLimitAlgorithm algorithm) {
		return algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	@Test
	void springCloudsCompatibilityCheckAcceptedThisSpringBoot() {
		assertThat(gateway.getBeansOfType(CompatibilityVerifierAutoConfiguration.class)).hasSize(1);
	}

	@Test
	void aRouteCanTakeSeveralPermitsPerRequest() throws Exception {
		String client = "client-" + clients.incrementAndGet();
		HttpResponse<String> admitted = get("/pairs/hello", client);
		assertThat(admitted.statusCode()).isEqualTo(200);
		assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
		assertThat(admitted.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("2");
		assertThat(get("/pairs/hello", client).statusCode()).isEqualTo(429);
	}

	@Test
	void theGatewaysOwnRedisRateLimiterStaysTheFiltersDefault() {
		assertThat(gateway.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
			.isInstanceOf(RedisRateLimiter.class);
		assertThat(gateway.getBean(RateLimitGatewayAutoConfiguration.BEAN_NAME))
			.isInstanceOf(GatewayRateLimiter.class);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void eachAlgorithmAdmitsExactlyItsBoundThenAnswers429(RateLimitAlgorithm algorithm) throws Exception {
		String name = limiterName(algorithm);
		String client = "client-" + clients.incrementAndGet();
		for (int i = 1; i <= 3; i++) {
			HttpResponse<String> admitted = get("/" + name + "/hello", client);
			assertThat(admitted.statusCode()).as("request %d", i).isEqualTo(200);
			assertThat(admitted.body()).isEqualTo("backend /" + name + "/hello");
			assertThat(admitted.headers().firstValue("X-RateLimit-Remaining")).hasValue(Long.toString(3 - i));
			assertThat(admitted.headers().firstValue("X-RateLimit-Burst-Capacity")).hasValue("3");
			assertThat(admitted.headers().firstValue("X-RateLimit-Requested-Tokens")).hasValue("1");
			assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"" + name + "\";q=3;w=3600000");
			assertThat(admitted.headers().firstValue("Retry-After")).isEmpty();
		}
		HttpResponse<String> rejected = get("/" + name + "/hello", client);
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.body()).doesNotContain("backend");
		assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
		assertThat(rejected.headers().firstValue("RateLimit")).hasValueSatisfying(
				(value) -> assertThat(value).matches("\"" + name + "\";r=0;t=\\d+"));
		// Up to two periods: the sliding window still weighs the previous window's calls after it ended.
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1L, 7_200_000L);
		// Another key has its own count.
		assertThat(get("/" + name + "/hello", client + "-other").statusCode()).isEqualTo(200);
	}

	@Test
	void whileRedisIsPausedTheLimitersFailurePolicyDecidesWithinTheCommandTimeout() throws Exception {
		String client = "client-" + clients.incrementAndGet();
		assertThat(get("/closed/hello", client).statusCode()).isEqualTo(200);
		redis.server().pause();
		try {
			long start = System.nanoTime();
			HttpResponse<String> closed = get("/closed/hello", client);
			assertThat(closed.statusCode()).isEqualTo(429);
			assertThat(closed.headers().firstValue("X-RateLimit-Remaining")).hasValue("-1");
			assertThat(closed.headers().firstValue("RateLimit")).isEmpty();
			assertThat(closed.headers().firstValue("Retry-After")).hasValue("1");
			HttpResponse<String> open = get("/open/hello", client);
			assertThat(open.statusCode()).isEqualTo(200);
			assertThat(open.body()).isEqualTo("backend /open/hello");
			assertThat(open.headers().firstValue("X-RateLimit-Remaining")).hasValue("-1");
			// Two decisions, each bounded by the 500 ms command timeout: generous for a loaded machine.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
		}
		finally {
			redis.server().resume();
		}
		// Refused at once until Redis answers the availability PING; then decided by Redis again.
		AvailabilityTesting.awaitAvailable(gateway);
		assertThat(get("/closed/hello", client).statusCode()).isEqualTo(200);
	}

	@Test
	void aRouteThatNamesNoLimiterFailsItsRequestsRatherThanPassThemUnlimited() throws Exception {
		HttpResponse<String> response = get("/unnamed/hello", "client-" + clients.incrementAndGet());
		assertThat(response.statusCode()).isEqualTo(500);
		assertThat(response.body()).doesNotContain("backend");
	}

	private HttpResponse<String> get(String path, String client) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
			.timeout(Duration.ofSeconds(30))
			.header("X-Client", client)
			.GET()
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class GatewayApplication {

		@Bean
		KeyResolver clientKeyResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
		}

	}

}

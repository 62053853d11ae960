package io.rediskit.autoconfigure.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.rediskit.autoconfigure.outage.AvailabilityTesting;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real HTTP calls through {@code redis-kit.rate-limit.web.rules}, run once per web stack by its subclasses, on
 * one application (with Spring Security's HTTP Basic for the principal) whose rules cover every key source. Every
 * limiter admits 2 requests per hour (GCRA), {@code strict} 1: counts are exact, nothing waits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RateLimitRulesHttpContract {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	static final String[] RULES = Stream.of(new String[][] {
			{ "redis-kit.rate-limit.limiters.two.limit=2", "redis-kit.rate-limit.limiters.two.period=1h",
					"redis-kit.rate-limit.limiters.strict.limit=1", "redis-kit.rate-limit.limiters.strict.period=1h",
					"redis-kit.rate-limit.limiters.closed.limit=2", "redis-kit.rate-limit.limiters.closed.period=1h",
					"redis-kit.rate-limit.limiters.closed.failure-policy=fail-closed",
					"redis-kit.rate-limit.limiters.annotated.limit=2",
					"redis-kit.rate-limit.limiters.annotated.period=1h",
					"redis-kit.rate-limit.web.rules[7].methods=POST,put" },
			rule(0, "/ip/**", "ip", "two"), rule(1, "/header/**", "header:X-Api-Key", "two"),
			rule(2, "/user/**", "principal", "two"), rule(3, "/session/count/**", "session", "two"),
			rule(4, "/spel/**", "#request.header('X-Tenant')?.toLowerCase()", "two"),
			rule(5, "/multi/strict", "ip", "strict"), rule(6, "/multi/**", "ip", "two"),
			rule(7, "/write/**", "ip", "two"), rule(8, "/closed/**", "ip", "closed"),
			rule(9, "/open/**", "ip", "two") })
		.flatMap(Arrays::stream)
		.toArray(String[]::new);

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext context;

	private String base;

	/** @return the web stack under test */
	abstract WebApplicationType webApplicationType();

	/** @return the application: {@link Endpoints}, the stack's session endpoint and Spring Security */
	abstract Class<?> application();

	/**
	 * @param response the answer to {@code GET /start-session}
	 * @return the {@code Cookie} header that sends the session back
	 */
	abstract String sessionCookie(HttpResponse<String> response);

	@BeforeAll
	void start() {
		this.context = run();
		this.base = base(this.context);
	}

	@AfterAll
	void stop() {
		this.context.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void ipRuleRejectsTheThirdRequestLikeTheAnnotationAndIgnoresASpoofedForwardedFor() throws Exception {
		HttpResponse<String> first = get("/ip/a", "X-Forwarded-For", "198.51.100.1");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("ok");
		assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"two\";q=2;w=3600");
		assertRemaining(first, "two", 1);
		assertRemaining(get("/ip/b", "X-Forwarded-For", "198.51.100.2"), "two", 0);

		// No forward-headers strategy: X-Forwarded-For is the client's word, not its address.
		HttpResponse<String> rejected = get("/ip/c", "X-Forwarded-For", "198.51.100.3");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1790L, 1800L);
		assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"two\";q=2;w=3600");
		Matcher rateLimit = Pattern.compile("\"two\";r=0;t=(\\d+)")
			.matcher(rejected.headers().firstValue("RateLimit").orElseThrow());
		assertThat(rateLimit.matches()).isTrue();
		assertThat(Long.parseLong(rateLimit.group(1))).isBetween(3590L, 3600L);
		Map<?, ?> problem = JsonMapper.builder().build().readValue(rejected.body(), Map.class);
		assertThat(problem.get("status")).isEqualTo(429);
		assertThat(problem.get("title")).isEqualTo("Too Many Requests");
		assertThat(problem.get("limiter")).isEqualTo("two");
		assertThat(problem.get("instance")).isEqualTo("/ip/c");
		assertThat(((Number) problem.get("retryAfterSeconds")).longValue()).isEqualTo(retryAfter);
		assertThat((String) problem.get("detail")).isEqualTo("Rate limit 'two' exceeded; retry after " + retryAfter
				+ " seconds.");
		assertThat(rejected.body()).doesNotContain("127.0.0.1");
	}

	@Test
	void headerRuleCountsEachValueAndRequestsWithoutItShareOneCount() throws Exception {
		assertThat(statuses(3, "/header/a", "X-Api-Key", "key-1")).containsExactly(200, 200, 429);
		assertThat(get("/header/a", "X-Api-Key", "key-2").statusCode()).isEqualTo(200);
		// Without the header (or with an empty one), no exception: one shared count for all such requests.
		assertThat(get("/header/a").statusCode()).isEqualTo(200);
		assertThat(get("/header/a", "X-Api-Key", "").statusCode()).isEqualTo(200);
		assertThat(get("/header/a").statusCode()).isEqualTo(429);
		assertThat(get("/header/a", "X-Api-Key", "key-3").statusCode()).isEqualTo(200);
	}

	@Test
	void principalRuleCountsEachAuthenticatedUser() throws Exception {
		assertThat(statuses(3, "/user/me", "Authorization", basic("ada"))).containsExactly(200, 200, 429);
		HttpResponse<String> bob = get("/user/me", "Authorization", basic("bob"));
		assertThat(bob.statusCode()).isEqualTo(200);
		assertThat(bob.body()).isEqualTo("ok");
		assertThat(statuses(3, "/user/me")).containsExactly(200, 200, 429);
		assertThat(get("/user/me", "Authorization", basic("bob")).statusCode()).isEqualTo(200);
		assertThat(get("/user/me", "Authorization", basic("bob")).statusCode()).isEqualTo(429);
	}

	@Test
	void sessionRuleCountsEachSessionAndRequestsWithoutOneShareOneCount() throws Exception {
		String first = sessionCookie(get("/start-session"));
		String second = sessionCookie(get("/start-session"));
		assertThat(first).isNotEqualTo(second);
		assertThat(statuses(3, "/session/count", "Cookie", first)).containsExactly(200, 200, 429);
		assertThat(statuses(2, "/session/count", "Cookie", second)).containsExactly(200, 200);
		assertThat(statuses(3, "/session/count")).containsExactly(200, 200, 429);
		// A cookie naming no session is no session: the shared count.
		assertThat(get("/session/count", "Cookie", first.replaceAll("=.*", "=forged")).statusCode()).isEqualTo(429);
	}

	@Test
	void expressionRuleCountsWhatTheExpressionMakesOfTheRequest() throws Exception {
		assertThat(get("/spel/a", "X-Tenant", "Acme").statusCode()).isEqualTo(200);
		assertThat(get("/spel/b", "X-Tenant", "ACME").statusCode()).isEqualTo(200);
		assertThat(get("/spel/c", "X-Tenant", "acme").statusCode()).isEqualTo(429);
		assertThat(get("/spel/c", "X-Tenant", "#{T(java.lang.System).exit(1)}").statusCode()).isEqualTo(200);
		assertThat(statuses(3, "/spel/c")).containsExactly(200, 200, 429);
	}

	@Test
	void theFirstMatchingRuleAppliesAndNoOther() throws Exception {
		HttpResponse<String> strict = get("/multi/strict");
		assertThat(strict.statusCode()).isEqualTo(200);
		assertRemaining(strict, "strict", 0);
		assertThat(strict.headers().allValues("RateLimit-Policy")).containsExactly("\"strict\";q=1;w=3600");
		assertThat(get("/multi/strict").statusCode()).isEqualTo(429);
		// The general rule has counted nothing yet.
		assertRemaining(get("/multi/other"), "two", 1);
		assertRemaining(get("/multi/other"), "two", 0);
		assertThat(get("/multi/other").statusCode()).isEqualTo(429);
		assertThat(get("/multi/strict").statusCode()).isEqualTo(429);
	}

	@Test
	void aRuleWithMethodsLimitsThoseMethodsOnly() throws Exception {
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> read = get("/write/x");
			assertThat(read.statusCode()).isEqualTo(200);
			assertThat(read.headers().firstValue("RateLimit-Policy")).isEmpty();
		}
		assertThat(send("POST", "/write/x").statusCode()).isEqualTo(200);
		assertThat(send("PUT", "/write/x").statusCode()).isEqualTo(200);
		assertThat(send("POST", "/write/x").statusCode()).isEqualTo(429);
	}

	@Test
	void whenRedisCannotAnswerTheLimitersFailurePolicyDecides() throws Exception {
		redis.server().pause();
		try {
			HttpResponse<String> closed = get("/closed/x");
			assertThat(closed.statusCode()).isEqualTo(429);
			assertThat(closed.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(closed.headers().firstValue("RateLimit-Policy")).hasValue("\"closed\";q=2;w=3600");
			assertThat(closed.headers().firstValue("RateLimit")).isEmpty();
			assertThat(closed.body()).contains("Rate limit 'closed' cannot be checked now; retry after 1 second.");
			HttpResponse<String> open = get("/open/x");
			assertThat(open.statusCode()).isEqualTo(200);
			assertThat(open.headers().firstValue("RateLimit-Policy")).hasValue("\"two\";q=2;w=3600");
			assertThat(open.headers().firstValue("RateLimit")).isEmpty();
		}
		finally {
			redis.server().resume();
		}
		// Refused at once until Redis answers the availability PING; then decided by Redis again.
		AvailabilityTesting.awaitAvailable(this.context);
		// The call that timed out had reached the paused server, which counted it on resuming: this is the second.
		assertRemaining(get("/closed/x"), "closed", 0);
	}

	@Test
	void successHeadersCanBeSwitchedOff() throws Exception {
		try (ConfigurableApplicationContext off = run("redis-kit.rate-limit.web.headers.on-success=false")) {
			String base = base(off);
			HttpResponse<String> allowed = getFrom(base, "/ip/a");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit-Policy")).isEmpty();
			assertThat(allowed.headers().firstValue("RateLimit")).isEmpty();
			assertThat(getFrom(base, "/ip/a").statusCode()).isEqualTo(200);
			HttpResponse<String> rejected = getFrom(base, "/ip/a");
			assertThat(rejected.statusCode()).isEqualTo(429);
			assertThat(rejected.headers().firstValue("RateLimit-Policy")).isPresent();
		}
	}

	@Test
	void forwardedForCountsUnderTheNativeStrategy() throws Exception {
		assertForwardedForIsTheClient("native");
	}

	@Test
	void forwardedForCountsUnderTheFrameworkStrategy() throws Exception {
		assertForwardedForIsTheClient("framework");
	}

	@Test
	void forwardedForIsIgnoredUnderTheNoneStrategy() throws Exception {
		try (ConfigurableApplicationContext none = run("server.forward-headers-strategy=none")) {
			String base = base(none);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(429);
			assertThat(getFrom(base, "/ip/a", "Forwarded", "for=203.0.113.10").statusCode()).isEqualTo(429);
		}
	}

	private void assertForwardedForIsTheClient(String strategy) throws Exception {
		try (ConfigurableApplicationContext forwarded = run("server.forward-headers-strategy=" + strategy)) {
			String base = base(forwarded);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.7").statusCode()).isEqualTo(429);
			assertThat(getFrom(base, "/ip/a", "X-Forwarded-For", "203.0.113.8").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a").statusCode()).isEqualTo(200);
			assertThat(getFrom(base, "/ip/a").statusCode()).isEqualTo(429);
		}
	}

	ConfigurableApplicationContext run(String... properties) {
		return new SpringApplicationBuilder(application()).web(webApplicationType())
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=500ms")
			.properties(RULES)
			.properties(properties)
			.run();
	}

	static String base(ConfigurableApplicationContext context) {
		return "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
	}

	HttpResponse<String> get(String path, String... headers) throws Exception {
		return getFrom(this.base, path, headers);
	}

	HttpResponse<String> getFrom(String base, String path, String... headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).GET();
		for (int i = 0; i < headers.length; i += 2) {
			request.header(headers[i], headers[i + 1]);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.method(method, HttpRequest.BodyPublishers.ofString("x"))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private List<Integer> statuses(int count, String path, String... headers) throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			statuses.add(get(path, headers).statusCode());
		}
		return statuses;
	}

	static void assertRemaining(HttpResponse<String> response, String limiter, long remaining) {
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit"))
			.hasValueSatisfying((value) -> assertThat(value).matches("\"" + limiter + "\";r=" + remaining + ";t=\\d+"));
	}

	static String basic(String user) {
		return "Basic " + Base64.getEncoder().encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8));
	}

	private static String[] rule(int index, String path, String key, String limiter) {
		String prefix = "redis-kit.rate-limit.web.rules[" + index + "].";
		return new String[] { prefix + "path=" + path, prefix + "key=" + key, prefix + "limiter=" + limiter };
	}

	@RestController
	static class Endpoints {

		@RequestMapping({ "/ip/**", "/header/**", "/user/**", "/session/count/**", "/spel/**", "/multi/**",
				"/write/**", "/closed/**", "/open/**" })
		String ok() {
			return "ok";
		}

	}

}

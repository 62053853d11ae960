package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives the sample's rate-limited endpoints over HTTP against a real redis-server started by the test, with
 * the limiters of {@code application.yml}: 5 calls per 10 s per client, and 5 login attempts per minute.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=health,metrics,rediskitratelimit")
class RateLimitSampleTests extends SampleHttpTests {

	private static final long SECOND_MICROS = 1_000_000;

	// The period of the api-* limiters: windows change at multiples of it, in server time.
	private static final long PERIOD_MICROS = 10 * SECOND_MICROS;

	// At 5 per 10 s a token bucket and GCRA give a permit back every 2 s.
	private static final long REFILL_MICROS = 2 * SECOND_MICROS;

	final JsonMapper json = JsonMapper.builder().build();

	@AfterEach
	void clean() {
		redis.flushAll();
	}

	@ParameterizedTest(name = "{0}: {1} of 10 admitted")
	@CsvSource({ "sliding-log, 5", "sliding-window, 5", "fixed-window, 5", "token-bucket, 8", "gcra, 3" })
	void aBurstOfTenGetsExactlyTheAlgorithmsAllowance(String algorithm, int allowed) throws Exception {
		String path = "/api/ratelimit/" + algorithm;
		assertThat(get(path, "warm-up").statusCode()).isEqualTo(200);
		List<Integer> expected = new ArrayList<>(Collections.nCopies(allowed, 200));
		expected.addAll(Collections.nCopies(10 - allowed, 429));
		for (int attempt = 1;; attempt++) {
			String client = "burst-" + attempt;
			awaitRoomInTheCurrentWindow();
			long start = serverMicros();
			List<Integer> statuses = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				statuses.add(get(path, client).statusCode());
			}
			long end = serverMicros();
			// Within one window and under one refill interval, every algorithm admits exactly its allowance. A
			// loaded machine can stretch the burst beyond that: such an attempt proves nothing, try again.
			boolean deterministic = end - start < REFILL_MICROS && start / PERIOD_MICROS == end / PERIOD_MICROS;
			if (!deterministic && attempt < 5) {
				continue;
			}
			assertThat(end - start).as("burst duration, µs").isLessThan(REFILL_MICROS);
			assertThat(statuses).as("statuses of 10 calls to %s", path).isEqualTo(expected);
			return;
		}
	}

	@Test
	void theEndpointAnswers404ForAnUnknownLimiterAnd400ForABadKeyNotAServerError() throws Exception {
		assertThat(get("/actuator/rediskitratelimit/api-sliding-lg/ada").statusCode())
			.as("a typo in the limiter's name, as Spring Boot's endpoints answer one").isEqualTo(404);
		assertThat(get("/actuator/rediskitratelimit/api-sliding-log/" + "k".repeat(1100)).statusCode())
			.as("a key longer than the endpoint reads").isEqualTo(400);
		assertThat(get("/actuator/rediskitratelimit/api-sliding-log/ada").statusCode()).isEqualTo(200);
	}

	@Test
	void theAsyncEndpointDecidesWithoutBlockingAndAnswers429LikeTheAnnotation() throws Exception {
		// GCRA, 5 per 10 s, burst 5: five at once, then one every 2 s.
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			statuses.add(get("/api/ratelimit/async", "async-client").statusCode());
		}
		assertThat(statuses.subList(0, 5)).containsOnly(200);
		HttpResponse<String> rejected = get("/api/ratelimit/async", "async-client");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
		assertThat(this.json.readValue(rejected.body(), Map.class).get("limiter")).isEqualTo("api-async");
		assertThat(rejected.body()).doesNotContain("async-client");
	}

	@Test
	void aRejectionAnswers429WithRetryAfterRateLimitHeadersAndAProblemDetail() throws Exception {
		for (int i = 0; i < 5; i++) {
			assertThat(get("/api/ratelimit/sliding-log", "client-secret-7").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> rejected = get("/api/ratelimit/sliding-log", "client-secret-7");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		// The oldest of the 5 leaves the sliding log 10 s after it was admitted.
		long retryAfter = Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow());
		assertThat(retryAfter).isBetween(1L, 10L);
		assertThat(field(rejected, "RateLimit-Policy", "api-sliding-log")).hasValue("\"api-sliding-log\";q=5;w=10");
		Matcher rateLimit = Pattern.compile("\"api-sliding-log\";r=0;t=(\\d+)")
			.matcher(field(rejected, "RateLimit", "api-sliding-log").orElseThrow());
		assertThat(rateLimit.matches()).isTrue();
		assertThat(Long.parseLong(rateLimit.group(1))).isBetween(retryAfter, 10L);
		Map<?, ?> problem = this.json.readValue(rejected.body(), Map.class);
		assertThat(problem.get("status")).isEqualTo(429);
		assertThat(problem.get("title")).isEqualTo("Too Many Requests");
		assertThat(problem.get("limiter")).isEqualTo("api-sliding-log");
		assertThat(((Number) problem.get("retryAfterSeconds")).longValue()).isEqualTo(retryAfter);
		assertThat(rejected.body()).doesNotContain("client-secret-7");
		// Another client has a count of its own.
		assertThat(get("/api/ratelimit/sliding-log", "another-client").statusCode()).isEqualTo(200);
		HttpResponse<String> rejections = get(
				"/actuator/metrics/rediskit.ratelimit.decisions?tag=limiter:api-sliding-log&tag=result:rejected");
		assertThat(rejections.statusCode()).isEqualTo(200);
		assertThat(rejections.body()).contains("\"COUNT\"");
		assertThat(get("/actuator/metrics/rediskit.ratelimit.latency?tag=limiter:api-sliding-log", "metrics")
			.statusCode()).isEqualTo(200);
	}

	@Test
	void clientHeadersAreKeysStoredAsData() throws Exception {
		String hostile = "T(java.lang.Runtime){x}#{1+1}";
		assertThat(get("/api/ratelimit/sliding-log", hostile).body()).contains("\"servedBy\":\"handler\"");
		assertThat(redis.server().command("EXISTS", "rk:ratelimit:sliding-log:{api-sliding-log:T(java.lang.Runtime)%7Bx%7D#%7B1+1%7D}"))
			.isEqualTo(1L);
		assertThat(get("/api/ratelimit/sliding-log").body()).contains("\"client\":\"anonymous\"");
	}

	@Test
	void loginAttemptsAreLimitedPerUserNameAndASuccessfulLoginStartsAfresh() throws Exception {
		for (int i = 0; i < 4; i++) {
			assertThat(login("ada", "wrong").statusCode()).isEqualTo(401);
		}
		HttpResponse<String> success = login("ada", "lovelace");
		assertThat(success.statusCode()).isEqualTo(200);
		assertThat(success.body()).contains("LOGGED_IN");
		assertThat(redis.server().command("EXISTS", "rk:ratelimit:sliding-log:{login:ada}"))
			.as("the failed attempts are forgotten").isEqualTo(0L);
		for (int i = 0; i < 5; i++) {
			assertThat(login("ada", "wrong").statusCode()).isEqualTo(401);
		}
		// The sixth attempt within a minute does not reach the password check, even with the right password.
		HttpResponse<String> rejected = login("ada", "lovelace");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(rejected.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 60L);
		assertThat(field(rejected, "RateLimit-Policy", "login")).hasValue("\"login\";q=5;w=60");
		assertThat(this.json.readValue(rejected.body(), Map.class).get("limiter")).isEqualTo("login");
		// Counted per user name.
		assertThat(login("grace", "wrong").statusCode()).isEqualTo(401);
		assertThat(post("/api/login", "{\"password\":\"lovelace\"}").statusCode()).isEqualTo(400);
	}

	@Test
	void theRegistryAnswersInCodeWithRateLimitHeadersOnEveryAnswer() throws Exception {
		// A bucket of 10 tokens, refilled at 5 per 10 s: 4 + 6 empty it, and 10 more need almost 20 s.
		HttpResponse<String> four = get("/api/ratelimit/programmatic?permits=4", "reports");
		assertThat(four.statusCode()).isEqualTo(200);
		assertThat(field(four, "RateLimit-Policy", "api-programmatic")).hasValue("\"api-programmatic\";q=5;w=10");
		assertThat(field(four, "RateLimit", "api-programmatic").orElseThrow()).matches("\"api-programmatic\";r=6;t=8");
		Map<?, ?> decision = this.json.readValue(four.body(), Map.class);
		assertThat(decision.get("outcome")).isEqualTo("ALLOWED");
		assertThat(decision.get("limit")).isEqualTo(10);
		assertThat(decision.get("remaining")).isEqualTo(6);
		assertThat(decision.get("resetAfterMillis")).isEqualTo(8000);
		HttpResponse<String> six = get("/api/ratelimit/programmatic?permits=6", "reports");
		assertThat(six.statusCode()).isEqualTo(200);
		assertThat(field(six, "RateLimit", "api-programmatic").orElseThrow()).matches("\"api-programmatic\";r=\\d;t=\\d+");
		HttpResponse<String> ten = get("/api/ratelimit/programmatic?permits=10", "reports");
		assertThat(ten.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(ten.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 20L);
		assertThat(this.json.readValue(ten.body(), Map.class).get("limiter")).isEqualTo("api-programmatic");
		assertThat(get("/api/ratelimit/programmatic?permits=11", "reports").statusCode()).isEqualTo(400);
	}

	@Test
	void overTheLimitTheFallbackAnswersInstead() throws Exception {
		get("/api/ratelimit/fallback", "warm-up");
		List<String> servedBy = new ArrayList<>();
		// GCRA at 5 per 10 s: 5 at once, then one every 2 s. Calls come faster than that, so one falls back.
		while (!servedBy.contains("fallback") && servedBy.size() < 20) {
			HttpResponse<String> response = get("/api/ratelimit/fallback", "falling-back");
			assertThat(response.statusCode()).isEqualTo(200);
			Map<?, ?> answer = this.json.readValue(response.body(), Map.class);
			servedBy.add((String) answer.get("servedBy"));
			if ("fallback".equals(answer.get("servedBy"))) {
				assertThat(((Number) answer.get("retryAfterSeconds")).longValue()).isBetween(1L, 2L);
			}
		}
		assertThat(servedBy).startsWith("handler", "handler", "handler", "handler", "handler").endsWith("fallback");
	}

	/** Waits for the next window when less than the longest burst is left of the current one. */
	private static void awaitRoomInTheCurrentWindow() throws InterruptedException {
		long intoWindow = serverMicros() % PERIOD_MICROS;
		if (intoWindow > PERIOD_MICROS - REFILL_MICROS - SECOND_MICROS / 2) {
			TimeUnit.MICROSECONDS.sleep(PERIOD_MICROS - intoWindow + 20_000);
		}
	}

	private static long serverMicros() {
		List<?> time = (List<?>) redis.server().command("TIME");
		return Long.parseLong((String) time.get(0)) * SECOND_MICROS + Long.parseLong((String) time.get(1));
	}

	private HttpResponse<String> login(String username, String password) throws Exception {
		return post("/api/login", "{\"username\":\"" + username + "\",\"password\":\"" + password + "\"}");
	}

	private HttpResponse<String> post(String path, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path, String client) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(uri(path)).header("X-Client", client).GET().build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	// A response can carry the fields of several limiters: the route rule's (api-per-ip) and the endpoint's.
	private static Optional<String> field(HttpResponse<String> response, String header, String limiter) {
		return response.headers()
			.allValues(header)
			.stream()
			.filter((value) -> value.startsWith("\"" + limiter + "\""))
			.findFirst();
	}

}

package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample with its redis-server stopped: the {@code login} limiter fails closed, the API limiters fail open,
 * the first call within the command timeout, the later ones at once while the outage is known. A class of its own, as the server does not come back.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.data.redis.timeout=500ms")
class RateLimitSampleOutageTests extends SampleHttpTests {

	@Test
	void withRedisStoppedLoginFailsClosedAndTheApiFailsOpen() throws Exception {
		// Connected and counting first: the outage starts on a live connection.
		assertThat(login("ada", "wrong").statusCode()).isEqualTo(401);
		assertThat(get("/api/ratelimit/gcra").statusCode()).isEqualTo(200);
		redis.server().stop();

		long started = System.nanoTime();
		HttpResponse<String> login = login("ada", "lovelace");
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(login.statusCode()).isEqualTo(429);
		assertThat(login.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(field(login, "RateLimit-Policy", "login")).hasValue("\"login\";q=5;w=60");
		assertThat(field(login, "RateLimit", "login")).as("usage unknown while Redis is down").isEmpty();
		Map<?, ?> problem = JsonMapper.builder().build().readValue(login.body(), Map.class);
		assertThat(problem.get("limiter")).isEqualTo("login");
		assertThat(problem.get("retryAfterSeconds")).isEqualTo(1);
		// One command timeout (500 ms), with generous slack for a loaded machine.
		assertThat(took).isLessThan(Duration.ofSeconds(5));

		// The outage is known now: each later call is answered without waiting for another timeout.
		started = System.nanoTime();
		for (int i = 0; i < 8; i++) {
			assertThat(get("/api/ratelimit/gcra").statusCode()).as("fail-open call %d", i).isEqualTo(200);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
		assertThat(get("/actuator/metrics/rediskit.outage.available").body()).contains("\"value\":0.0");
		assertThat(get("/actuator/health/rediskitoutage").body()).contains("\"status\":\"DOWN\"");
		assertThat(get("/actuator/metrics/rediskit.ratelimit.decisions?tag=limiter:login&tag=result:error-rejected")
			.body()).contains("\"value\":1.0");
		assertThat(get("/actuator/metrics/rediskit.ratelimit.decisions?tag=limiter:api-gcra&tag=result:error-allowed")
			.body()).contains("\"value\":8.0");
	}

	private HttpResponse<String> login(String username, String password) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(uri("/api/login"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers
				.ofString("{\"username\":\"" + username + "\",\"password\":\"" + password + "\"}"))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
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

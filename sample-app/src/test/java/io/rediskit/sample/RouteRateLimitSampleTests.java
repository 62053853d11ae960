package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The route rule of {@code application.yml}, no annotation: every request under {@code /api/} counts against
 * {@code api-per-ip}, 100 per minute per client address (sliding log, so the count is exact).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class RouteRateLimitSampleTests extends SampleHttpTests {

	@Test
	void theHundredAndFirstApiRequestOfAMinuteFromOneAddressIsRejected() throws Exception {
		HttpResponse<String> first = get("/api/home", "198.51.100.1");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"api-per-ip\";q=100;w=60");
		assertThat(first.headers().firstValue("RateLimit").orElseThrow()).matches("\"api-per-ip\";r=99;t=\\d+");
		for (int i = 2; i <= 100; i++) {
			// A spoofed X-Forwarded-For changes nothing: the sample trusts no forwarded header.
			assertThat(get("/api/home", "198.51.100." + i).statusCode()).as("request %d", i).isEqualTo(200);
		}
		HttpResponse<String> rejected = get("/api/products/7", "203.0.113.1");
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
		assertThat(rejected.headers().firstValue("RateLimit-Policy")).hasValue("\"api-per-ip\";q=100;w=60");
		Map<?, ?> problem = JsonMapper.builder().build().readValue(rejected.body(), Map.class);
		assertThat(problem.get("limiter")).isEqualTo("api-per-ip");
		assertThat(problem.get("status")).isEqualTo(429);
		// Other paths are not under the rule.
		assertThat(get("/actuator/health", "203.0.113.1").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> get(String path, String forwardedFor) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("X-Forwarded-For", forwardedFor)
			.GET()
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}

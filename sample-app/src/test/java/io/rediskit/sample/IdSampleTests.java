package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The id endpoint over HTTP against a real redis-server: unique, increasing ids. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class IdSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	@SuppressWarnings("unchecked")
	void orderIdsAreUniqueAndIncreasing() throws Exception {
		Set<Long> seen = new HashSet<>();
		long previous = 0;
		for (int i = 0; i < 30; i++) {
			HttpResponse<String> response = this.http.send(HttpRequest
				.newBuilder(URI.create("http://localhost:" + this.port + "/api/ids/orders"))
				.POST(HttpRequest.BodyPublishers.noBody())
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).isEqualTo(200);
			long id = ((Number) this.json.readValue(response.body(), Map.class).get("id")).longValue();
			assertThat(id).isGreaterThan(previous);
			assertThat(seen.add(id)).isTrue();
			previous = id;
		}
	}

}

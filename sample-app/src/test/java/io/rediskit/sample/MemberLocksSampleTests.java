package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The read-write and fair lock endpoints over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MemberLocksSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	void aWriteIsReadBackAndItsTokenIsAboveTheReadBefore() throws Exception {
		Map<?, ?> before = call("GET", "/api/price-book/sku-1");
		Map<?, ?> written = call("PUT", "/api/price-book/sku-1?cents=1250");
		Map<?, ?> after = call("GET", "/api/price-book/sku-1");
		assertThat(((Number) written.get("writeToken")).longValue())
			.isGreaterThan(((Number) before.get("readToken")).longValue());
		assertThat(((Number) after.get("cents")).longValue()).isEqualTo(1250);
	}

	@Test
	void turnsComeWithIncreasingTokens() throws Exception {
		long first = ((Number) call("POST", "/api/turns/printer").get("turn")).longValue();
		long second = ((Number) call("POST", "/api/turns/printer").get("turn")).longValue();
		assertThat(second).isGreaterThan(first);
	}

	private Map<?, ?> call(String method, String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(200);
		return this.json.readValue(response.body(), Map.class);
	}

}

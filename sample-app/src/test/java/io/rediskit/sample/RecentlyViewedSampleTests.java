package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** "Recently viewed" products and trending, over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "redis-kit.recent-items.lists.viewed-products.trending-cache-ttl=1ms")
class RecentlyViewedSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	@SuppressWarnings("unchecked")
	void eachUserSeesTheirNewestFirstAndTrendingCountsEveryone() throws Exception {
		for (String product : List.of("kettle", "toaster", "kettle", "lamp")) {
			assertThat(send("POST", "/api/viewed/" + product, "ada").statusCode()).isEqualTo(200);
		}
		send("POST", "/api/viewed/kettle", "grace");
		assertThat(this.json.readValue(send("GET", "/api/viewed", "ada").body(), List.class))
			.containsExactly("lamp", "kettle", "toaster");
		assertThat(this.json.readValue(send("GET", "/api/viewed", "grace").body(), List.class)).containsExactly("kettle");
		List<Object> trending = this.json.readValue(send("GET", "/api/viewed/trending?count=1", "grace").body(), List.class);
		assertThat(trending).containsExactly(Map.of("product", "kettle", "views", 3));
	}

	private HttpResponse<String> send(String method, String path, String user) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("X-Client", user)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}

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

/**
 * "Recently viewed" products and trending, over HTTP against a real redis-server; the {@code rediskitrecentitems}
 * endpoint hides what a user viewed by default ({@code management.endpoint.rediskitrecentitems.show-values}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "redis-kit.recent-items.lists.viewed-products.trending-cache-ttl=1ms",
				"management.endpoints.web.exposure.include=health,rediskitrecentitems" })
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

	@Test
	@SuppressWarnings("unchecked")
	void theEndpointCountsAUsersItemsAndTrendingViewsButShowsNoItemByDefault() throws Exception {
		for (String product : List.of("kettle", "toaster")) {
			assertThat(send("POST", "/api/viewed/" + product, "linus").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> user = send("GET", "/actuator/rediskitrecentitems/viewed-products/linus", "linus");
		assertThat(user.statusCode()).isEqualTo(200);
		Map<String, Object> items = this.json.readValue(user.body(), Map.class);
		assertThat(items).as("the user the caller named is not repeated").doesNotContainKey("user")
			.containsEntry("count", 2);
		assertThat(items.get("items")).as("null (Actuator's mapper may leave it out)").isNull();
		HttpResponse<String> lists = send("GET", "/actuator/rediskitrecentitems", "linus");
		assertThat(lists.statusCode()).isEqualTo(200);
		assertThat(lists.body()).doesNotContain("kettle", "toaster").contains("\"views\"");
	}

	@Test
	void anUnknownListAnswers404AndABadUserAnswers400NotAServerError() throws Exception {
		HttpResponse<String> unknown = send("GET", "/actuator/rediskitrecentitems/viewed-prodcts/linus", "linus");
		assertThat(unknown.statusCode()).as("a typo in the list's name, as Spring Boot's endpoints answer one")
			.isEqualTo(404);
		assertThat(unknown.body()).doesNotContain("viewed-prodcts");
		HttpResponse<String> tooLong = send("GET", "/actuator/rediskitrecentitems/viewed-products/" + "u".repeat(1100),
				"linus");
		assertThat(tooLong.statusCode()).as("a user longer than the endpoint reads").isEqualTo(400);
	}

	private HttpResponse<String> send(String method, String path, String user) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("X-Client", user)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}

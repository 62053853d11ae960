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

/** "Most popular articles" with votes and a category view, over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "redis-kit.leaderboard.leaderboards.articles.view-cache-ttl=1ms",
				"management.endpoints.web.exposure.include=health,rediskitleaderboard" })
class ArticlesSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	void votesRankArticlesOverallAndPerCategoryOneVotePerVoter() throws Exception {
		assertThat(send("POST", "/api/articles/redis-streams?category=databases", Map.of()).statusCode()).isEqualTo(201);
		assertThat(send("POST", "/api/articles/spring-boot-4?category=java", Map.of()).statusCode()).isEqualTo(201);
		assertThat(send("POST", "/api/articles/lua-scripts?category=databases", Map.of()).statusCode()).isEqualTo(201);
		assertThat(send("POST", "/api/articles/lua-scripts", Map.of()).statusCode()).as("a repost").isEqualTo(200);
		// Posted within a second of each other: two votes of 432 s each decide the order.
		for (String voter : List.of("ada", "grace")) {
			assertThat(send("POST", "/api/articles/redis-streams/votes", Map.of("X-Client", voter)).statusCode())
				.isEqualTo(200);
		}
		assertThat(send("POST", "/api/articles/spring-boot-4/votes", Map.of("X-Client", "ada")).statusCode()).isEqualTo(200);
		HttpResponse<String> again = send("POST", "/api/articles/redis-streams/votes", Map.of("X-Client", "ada"));
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(send("POST", "/api/articles/never-posted/votes", Map.of("X-Client", "ada")).statusCode())
			.isEqualTo(410);
		assertThat(articles(send("GET", "/api/articles/popular?count=3", Map.of())))
			.containsExactly("redis-streams", "spring-boot-4", "lua-scripts");
		assertThat(articles(send("GET", "/api/articles/popular?category=databases", Map.of())))
			.containsExactly("redis-streams", "lua-scripts");
	}

	@Test
	void anUnknownLeaderboardAnswers404AndABadMemberAnswers400NotAServerError() throws Exception {
		HttpResponse<String> unknown = send("GET", "/actuator/rediskitleaderboard/article/ada", Map.of());
		assertThat(unknown.statusCode()).as("a typo in the leaderboard's name, as Spring Boot's endpoints answer one")
			.isEqualTo(404);
		HttpResponse<String> tooLong = send("GET", "/actuator/rediskitleaderboard/articles/" + "m".repeat(1100), Map.of());
		assertThat(tooLong.statusCode()).as("a member longer than the endpoint reads").isEqualTo(400);
		assertThat(send("GET", "/actuator/rediskitleaderboard/articles/ada", Map.of()).statusCode()).isEqualTo(200);
	}

	@Test
	void theEndpointShowsHiddenTopMembersAsNulls() throws Exception {
		assertThat(send("POST", "/api/articles/hidden-name", Map.of()).statusCode()).isIn(200, 201);
		HttpResponse<String> boards = send("GET", "/actuator/rediskitleaderboard", Map.of());
		assertThat(boards.statusCode()).isEqualTo(200);
		// As docs/leaderboards.md says: without show-values a top member keeps its rank and score, its name null.
		assertThat(boards.body()).contains("\"member\":null").doesNotContain("hidden-name");
	}

	@SuppressWarnings("unchecked")
	private List<Object> articles(HttpResponse<String> response) {
		assertThat(response.statusCode()).isEqualTo(200);
		List<Map<String, Object>> entries = this.json.readValue(response.body(), List.class);
		return entries.stream().map((entry) -> entry.get("article")).toList();
	}

	private HttpResponse<String> send(String method, String path, Map<String, String> headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		headers.forEach(request::header);
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}

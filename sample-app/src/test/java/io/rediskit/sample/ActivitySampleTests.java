package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** Daily active users, retention and page visitors, over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ActivitySampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	void dailyActiveUsersAndRetention() throws Exception {
		LocalDate day = LocalDate.now(ZoneId.of("Europe/Paris")).minusDays(10);
		for (long user : new long[] { 1, 2, 3, 4 }) {
			assertThat(send("POST", "/api/activity/" + user + "?date=" + day, "x").statusCode()).isEqualTo(200);
		}
		send("POST", "/api/activity/2?date=" + day.plusDays(7), "x");
		send("POST", "/api/activity/9?date=" + day.plusDays(7), "x");
		assertThat(body(send("GET", "/api/activity/dau?date=" + day, "x"))).containsEntry("activeUsers", 4);
		assertThat(body(send("GET", "/api/activity/retention?date=" + day + "&after=7", "x")))
			.containsEntry("cohort", 4).containsEntry("retained", 1).containsEntry("rate", 0.25);
		assertThat(body(send("GET", "/api/activity/range?from=" + day + "&to=" + day.plusDays(7), "x")))
			.containsEntry("activeEveryDay", 0).containsEntry("activeAnyDay", 5);
		assertThat(send("POST", "/api/activity/1000001", "x").statusCode()).as("above max-user-id").isEqualTo(400);
		assertThat(send("POST", "/api/activity/1?date=" + day.minusDays(500), "x").statusCode()).as("past retention")
			.isEqualTo(400);
	}

	@Test
	void visitorsOfSeveralPagesAreCountedOnce() throws Exception {
		send("POST", "/api/pages/home/visits", "ada");
		send("POST", "/api/pages/home/visits", "grace");
		send("POST", "/api/pages/pricing/visits", "ada");
		send("POST", "/api/pages/pricing/visits", "alan");
		assertThat(body(send("GET", "/api/pages/visitors?pages=home,pricing", "x"))).containsEntry("uniqueVisitors", 3);
		assertThat(body(send("GET", "/api/pages/visitors?pages=pricing", "x"))).containsEntry("uniqueVisitors", 2);
		assertThat(send("GET", "/api/pages/visitors?pages=nope", "x").statusCode()).isEqualTo(400);
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return this.json.readValue(response.body(), Map.class);
	}

	private HttpResponse<String> send(String method, String path, String client) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.header("X-Client", client)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}

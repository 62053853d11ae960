package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.rediskit.bloom.BloomFilterRegistry;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's story of the compact structures, over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.catalog-latency=20ms")
class CompactStructuresSampleTests extends SampleHttpTests {

	@Autowired
	ProductCatalog catalog;

	@Autowired
	BloomFilterRegistry filters;

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	void registrationRejectsATakenName() throws Exception {
		// The controller gives the filter the user table as its source; seeded, "never seen" is trusted.
		assertThat(this.filters.seedAsync("usernames").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		HttpResponse<String> first = send("POST", "/api/users?name=grace", Map.of());
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(body(first)).containsEntry("tableChecked", false);
		HttpResponse<String> again = send("POST", "/api/users?name=grace", Map.of());
		assertThat(again.statusCode()).isEqualTo(409);
		assertThat(body(again)).containsEntry("reason", "taken");
	}

	@Test
	void theHomePageCountsUniqueVisitorsToday() throws Exception {
		send("GET", "/api/home", Map.of("X-Client", "v1"));
		send("GET", "/api/home", Map.of("X-Client", "v2"));
		HttpResponse<String> third = send("GET", "/api/home", Map.of("X-Client", "v1"));
		assertThat(body(third)).containsEntry("uniqueVisitorsToday", 2);
	}

	@Test
	void checkInsShowAsACalendarWithStreaks() throws Exception {
		// Recent days: the calendar keeps a month 400 days after it ends, and refuses older check-ins.
		LocalDate today = LocalDate.now(ZoneId.of("Europe/Paris"));
		LocalDate firstOfMonth = today.withDayOfMonth(1);
		send("POST", "/api/checkins/ada?date=" + firstOfMonth.minusDays(1), Map.of());
		HttpResponse<String> checkIn = send("POST", "/api/checkins/ada?date=" + firstOfMonth, Map.of());
		assertThat(body(checkIn)).containsEntry("new", true).containsEntry("streak", 2);
		Map<String, Object> calendar = body(send("GET", "/api/checkins/ada?month=" + YearMonth.from(today), Map.of()));
		assertThat(calendar).containsEntry("count", 1).containsEntry("first", firstOfMonth.toString());
		assertThat((List<?>) calendar.get("days")).hasSize(today.lengthOfMonth()).element(0).isEqualTo(true);
	}

	@Test
	void aCheckInPastTheRetentionIsRefusedNotReportedAsNew() throws Exception {
		LocalDate longAgo = LocalDate.now(ZoneId.of("Europe/Paris")).minusDays(500);
		HttpResponse<String> checkIn = send("POST", "/api/checkins/grace?date=" + longAgo, Map.of());
		assertThat(checkIn.statusCode()).isEqualTo(400);
		assertThat(body(checkIn)).containsEntry("reason", "the date's month is past the calendar's retention");
		Map<String, Object> calendar = body(send("GET", "/api/checkins/grace?month=" + YearMonth.from(longAgo), Map.of()));
		assertThat(calendar).containsEntry("count", 0);
	}

	@Test
	void theGuardKeepsUnknownAndDeletedIdsAwayFromTheSlowCatalog() throws Exception {
		// The starter seeds the filter from the catalog in the background at startup; until then every id is looked up.
		assertThat(this.filters.seedAsync("products").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		HttpResponse<String> found = send("GET", "/api/products/7", Map.of());
		assertThat(found.statusCode()).isEqualTo(200);
		assertThat(body(found)).containsEntry("name", "Product 7");
		long before = this.catalog.lookups();
		for (int i = 0; i < 50; i++) {
			assertThat(send("GET", "/api/products/unknown-" + i, Map.of()).statusCode()).isEqualTo(404);
		}
		// At 0.1% false positives, at most a few of 50 unknown ids reach the catalog.
		assertThat(this.catalog.lookups() - before).isLessThanOrEqualTo(3);
		send("DELETE", "/api/products/8", Map.of());
		long beforeDeleted = this.catalog.lookups();
		for (int i = 0; i < 5; i++) {
			assertThat(send("GET", "/api/products/8", Map.of()).statusCode()).isEqualTo(404);
		}
		assertThat(this.catalog.lookups() - beforeDeleted).as("the miss is remembered").isEqualTo(1);
	}

	private HttpResponse<String> send(String method, String path, Map<String, String> headers) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		headers.forEach(request::header);
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Map.class);
	}

}

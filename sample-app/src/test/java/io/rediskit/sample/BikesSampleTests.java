package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The README's "bikes near me" story over HTTP against a real redis-server: bikes report, are found nearest
 * first, move, stop reporting and disappear; and the big-key report of the sample's own keys. Positions expire
 * after 4 s here instead of 5 minutes.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "redis-kit.geo.indexes.bikes.member-ttl=4s")
class BikesSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Test
	void bikesAreFoundNearestFirstAndAMoveReplacesThePosition() throws Exception {
		// Around the Louvre: 0.001 degree of latitude is about 111 m.
		assertThat(send("PUT", "/api/bikes/paris-1?lat=48.8610&lon=2.3360").statusCode()).isEqualTo(200);
		send("PUT", "/api/bikes/paris-2?lat=48.8630&lon=2.3360");
		send("PUT", "/api/bikes/paris-3?lat=48.8650&lon=2.3360");
		send("PUT", "/api/bikes/paris-far?lat=48.8900&lon=2.3360");
		Map<String, Object> near = body(send("GET", "/api/bikes/near?lat=48.8600&lon=2.3360&radius=800&limit=10"));
		assertThat(ids(near)).containsExactly("paris-1", "paris-2", "paris-3");
		assertThat(meters(near, 0)).isCloseTo(111.2, within(1.0));
		assertThat(meters(near, 2)).isCloseTo(556.0, within(2.0));
		assertThat(ids(body(send("GET", "/api/bikes/near?lat=48.8600&lon=2.3360&radius=800&limit=2"))))
			.containsExactly("paris-1", "paris-2");

		// paris-1 rides 3 km north (into other cells): it leaves the old neighbourhood in the same call.
		send("PUT", "/api/bikes/paris-1?lat=48.8870&lon=2.3360");
		assertThat(ids(body(send("GET", "/api/bikes/near?lat=48.8600&lon=2.3360&radius=800"))))
			.containsExactly("paris-2", "paris-3");
		assertThat(ids(body(send("GET", "/api/bikes/near?lat=48.8890&lon=2.3360&radius=500"))))
			.containsExactly("paris-far", "paris-1");
		assertThat(body(send("GET", "/api/bikes/paris-1"))).containsEntry("id", "paris-1");
		assertThat(send("DELETE", "/api/bikes/paris-2").statusCode()).isEqualTo(204);
		assertThat(send("GET", "/api/bikes/paris-2").statusCode()).isEqualTo(404);
	}

	@Test
	void aBikeThatStopsReportingIsNoLongerListed() throws Exception {
		// In Lyon, far from the other test's bikes.
		send("PUT", "/api/bikes/lyon-1?lat=45.7600&lon=4.8400");
		assertThat(ids(body(send("GET", "/api/bikes/near?lat=45.7600&lon=4.8410&radius=500"))))
			.containsExactly("lyon-1");
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!ids(body(send("GET", "/api/bikes/near?lat=45.7600&lon=4.8410&radius=500"))).isEmpty()) {
			assertThat(System.nanoTime()).as("lyon-1 expires 4 s after its last report").isLessThan(deadline);
			Thread.sleep(200);
		}
		assertThat(send("GET", "/api/bikes/lyon-1").statusCode()).isEqualTo(404);
		send("PUT", "/api/bikes/lyon-1?lat=45.7600&lon=4.8400");
		assertThat(ids(body(send("GET", "/api/bikes/near?lat=45.7600&lon=4.8410&radius=500"))))
			.as("reporting again lists it again")
			.containsExactly("lyon-1");
	}

	@Test
	void badPositionsAndSearchesBeyondTheIndexBoundsAnswer400() throws Exception {
		assertThat(send("PUT", "/api/bikes/b?lat=86&lon=2").statusCode()).isEqualTo(400);
		assertThat(send("PUT", "/api/bikes/b?lat=NaN&lon=2").statusCode()).isEqualTo(400);
		assertThat(send("GET", "/api/bikes/near?lat=48&lon=181").statusCode()).isEqualTo(400);
		HttpResponse<String> tooFar = send("GET", "/api/bikes/near?lat=48&lon=2&radius=50000");
		assertThat(tooFar.statusCode()).isEqualTo(400);
		assertThat(tooFar.body()).contains("at most 5000 m");
		assertThat(send("GET", "/api/bikes/near?lat=48&lon=2&limit=1000").statusCode()).isEqualTo(400);
		assertThat(send("GET", "/api/bikes/b").statusCode()).as("nothing was stored").isEqualTo(404);
	}

	@Test
	void theBigKeyReportListsTheSamplesOwnKeys() throws Exception {
		for (int i = 0; i < 50; i++) {
			send("PUT", "/api/bikes/berlin-" + i + "?lat=" + (52.50 + i * 0.001) + "&lon=13.40");
		}
		HttpResponse<String> response = send("GET", "/actuator/rediskitkeys");
		assertThat(response.statusCode()).isEqualTo(200);
		Map<String, Object> report = body(response);
		assertThat(((Number) report.get("keysScanned")).longValue()).isGreaterThanOrEqualTo(3);
		assertThat(report.get("elapsed")).as("a duration as every redis-kit endpoint writes it, never PT0.1S")
			.asString()
			.matches("\\d+(ns|us|ms|s|m|h|d)");
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> largest = (List<Map<String, Object>>) report.get("largestByMemory");
		assertThat(largest).isNotEmpty()
			.hasSizeLessThanOrEqualTo(5)
			.allMatch((key) -> ((String) key.get("key")).startsWith("rk:"));
		// The index's member-to-cell hash is the largest hash, holds every bike, and expires with the positions.
		@SuppressWarnings("unchecked")
		Map<String, Object> members = ((Map<String, List<Map<String, Object>>>) report.get("largestByElements"))
			.get("hash")
			.get(0);
		assertThat(members).containsEntry("key", "rk:geo:{bikes}:members");
		assertThat(((Number) members.get("elements")).longValue()).isGreaterThanOrEqualTo(50);
		assertThat(((Number) members.get("ttlMillis")).longValue()).isPositive();
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Map.class);
	}

	@SuppressWarnings("unchecked")
	private static List<String> ids(Map<String, Object> near) {
		return ((List<Map<String, Object>>) near.get("bikes")).stream().map((bike) -> (String) bike.get("id")).toList();
	}

	@SuppressWarnings("unchecked")
	private static double meters(Map<String, Object> near, int index) {
		return ((Number) ((List<Map<String, Object>>) near.get("bikes")).get(index).get("meters")).doubleValue();
	}

}

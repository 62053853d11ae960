package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.rediskit.lock.Lease;
import io.rediskit.lock.SemaphoreRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's semaphore and latch endpoints: a full semaphore answers 409, a latch opens at zero. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.export-duration=1ms")
class CoordinationSampleTests extends SampleHttpTests {

	@Autowired
	SemaphoreRegistry semaphores;

	@Test
	void anExportRunsWhileAPermitIsFreeAndIsRefusedWhenBothAreTaken() throws Exception {
		assertThat(post("/exports/acme").statusCode()).isEqualTo(200);
		// Two exports elsewhere hold both permits.
		try (Lease elsewhere = this.semaphores.getSemaphore("exports", 2).acquire(2, Duration.ZERO)) {
			HttpResponse<String> refused = post("/exports/acme");
			assertThat(refused.statusCode()).isEqualTo(409);
			assertThat(refused.body()).contains("exports");
		}
		assertThat(post("/exports/acme").body()).contains("\"tenant\":\"acme\"");
	}

	@Test
	void aLatchOpensWhenCountedDownToZero() throws Exception {
		assertThat(post("/latches/batch?count=2").body()).contains("\"done\":true", "\"count\":2");
		assertThat(post("/latches/batch/count-down").body()).contains("\"count\":1");
		assertThat(get("/latches/batch?waitMillis=100").body()).contains("\"done\":false", "\"count\":1");
		assertThat(post("/latches/batch/count-down").body()).contains("\"count\":0");
		assertThat(get("/latches/batch?waitMillis=1000").body()).contains("\"done\":true", "\"count\":0");
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}

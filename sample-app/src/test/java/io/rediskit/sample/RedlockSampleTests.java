package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's Redlock story over HTTP: the {@code redlock} profile on five servers the test started. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.payment-delay=400ms")
@ActiveProfiles("redlock")
class RedlockSampleTests {

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.servers(6);

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> servers.server(0).host());
		registry.add("spring.data.redis.port", () -> servers.server(0).port());
		for (int i = 1; i <= 5; i++) {
			int index = i;
			registry.add("redis-kit.lock.redlock.nodes[" + (i - 1) + "]",
					() -> "redis://127.0.0.1:" + servers.server(index).port());
		}
	}

	@LocalServerPort
	int port;

	final HttpClient http = HttpClient.newHttpClient();

	@Test
	void concurrentRunsOfOneReportRunItOnceAndAnswer409ToTheRest() throws Exception {
		// Six contenders over five servers can split the vote so that none reaches a majority and all answer 409:
		// Redlock's documented behaviour with no wait time. Never two 200s in one burst; one burst of a few has one.
		// Each burst starts on free servers: the losers of a split vote undo their votes in the background, and a
		// burst that met those leftovers would split again for a reason that has nothing to do with the vote.
		List<HttpResponse<String>> responses = List.of();
		for (int burst = 0; burst < 20; burst++) {
			awaitNoKeys();
			responses = concurrently(6, "/reports/daily/run");
			assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(200, 409)
				.filteredOn((status) -> status == 200).hasSizeLessThanOrEqualTo(1);
			if (responses.stream().anyMatch((response) -> response.statusCode() == 200)) {
				break;
			}
		}
		assertThat(responses).extracting(HttpResponse::statusCode).contains(200, 409);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200)
			.allSatisfy((response) -> assertThat(response.body()).contains("\"nodes\":5", "\"quorum\":3",
					"\"fencingToken\":"));
		assertThat(responses).filteredOn((response) -> response.statusCode() == 409)
			.allSatisfy((response) -> assertThat(response.body()).contains("\"lock\":\"reports\""));
		String metrics = this.http
			.send(HttpRequest.newBuilder(uri("/actuator/metrics/rediskit.lock.acquire?tag=kind:redlock")).build(),
					HttpResponse.BodyHandlers.ofString())
			.body();
		assertThat(metrics).contains("\"COUNT\"");
		// Losers of a split vote release what they took without the caller waiting: the keys go within moments.
		awaitNoKeys();
		assertThat(keysLeft()).as("servers still holding the report's lock").isZero();
	}

	private static void awaitNoKeys() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (keysLeft() > 0 && System.nanoTime() < deadline) {
			Thread.sleep(20);
		}
	}

	private List<HttpResponse<String>> concurrently(int requests, String path) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(requests);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<HttpResponse<String>>> futures = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				futures.add(executor.submit(() -> {
					start.await();
					return this.http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
							HttpResponse.BodyHandlers.ofString());
				}));
			}
			start.countDown();
			List<HttpResponse<String>> responses = new ArrayList<>();
			for (Future<HttpResponse<String>> future : futures) {
				responses.add(future.get(30, TimeUnit.SECONDS));
			}
			return responses;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static long keysLeft() {
		long left = 0;
		for (int i = 1; i <= 5; i++) {
			left += (Long) servers.server(i).command("EXISTS", "rk:lock:{reports:daily}");
		}
		return left;
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}

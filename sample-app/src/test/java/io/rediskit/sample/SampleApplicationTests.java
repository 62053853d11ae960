package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** Drives the sample over HTTP against a real redis-server started by the test. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.payment-delay=400ms")
class SampleApplicationTests extends SampleHttpTests {

	@AfterEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void concurrentPaymentsOfOneOrderChargeItOnceAndAnswer409ToTheRest() throws Exception {
		List<HttpResponse<String>> responses = concurrently(8, "/orders/42/pay");
		List<Integer> statuses = responses.stream().map(HttpResponse::statusCode).toList();
		assertThat(statuses).containsOnly(200, 409).contains(200, 409);
		assertThat(responses).filteredOn((response) -> response.statusCode() == 200)
			.allSatisfy((response) -> assertThat(response.body()).contains("\"charges\":1"));
		HttpResponse<String> conflict = responses.stream().filter((response) -> response.statusCode() == 409)
			.findFirst().orElseThrow();
		assertThat(conflict.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		assertThat(conflict.body()).contains("\"status\":409").contains("\"lock\":\"orders\"").doesNotContain("orders:42");
		assertThat(redis.server().command("HGET", "sample:order:42", "charges")).isEqualTo("1");
		HttpResponse<String> again = post("/orders/42/pay");
		assertThat(again.statusCode()).isEqualTo(200);
		assertThat(again.body()).contains("ALREADY_PAID").contains("\"charges\":1");
	}

	@Test
	void programmaticPaymentsAreFencedAndChargeOnce() throws Exception {
		List<HttpResponse<String>> responses = concurrently(6, "/orders/7/pay-programmatic");
		assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(200, 409).contains(200);
		assertThat(redis.server().command("HGET", "sample:order:7", "charges")).isEqualTo("1");
		assertThat(redis.server().command("HGET", "sample:order:7", "token")).asString().isNotBlank();
	}

	@Test
	void asyncPaymentsWaitWithoutAThreadAreFencedAndChargeOnce() throws Exception {
		List<HttpResponse<String>> responses = concurrently(6, "/orders/9/pay-async");
		// Each waits up to a second for the lock without a blocked thread; a payment takes milliseconds, so the
		// waits normally succeed (a 409 only on a machine too slow to pay six times in a second).
		assertThat(responses).extracting(HttpResponse::statusCode).allMatch((status) -> status == 200 || status == 409)
			.contains(200);
		assertThat(responses).extracting(HttpResponse::body).filteredOn((body) -> body.contains("\"PAID\""))
			.hasSize(1);
		assertThat(redis.server().command("HGET", "sample:order:9", "charges")).isEqualTo("1");
		assertThat(redis.server().command("EXISTS", "rk:lock:{orders:9}")).isEqualTo(0L);
	}

	@Test
	void hostileOrderIdsAreJustData() throws Exception {
		HttpResponse<String> response = post("/orders/T(java.lang.Runtime)%7Bx%7D/pay");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).contains("PAID");
		assertThat(redis.server().command("EXISTS", "rk:lock:{orders:T(java.lang.Runtime)%7Bx%7D}:fence")).isEqualTo(1L);
	}

	@Test
	void actuatorShowsHealthMetricsAndHeldLocks() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<HttpResponse<String>> slowPayment = executor.submit(() -> post("/orders/99/pay"));
			// The lock's name holds the order id, which the endpoint hides (show-values is left at never): null, or
			// left out by Actuator's mapper.
			String locks = awaitBody("/actuator/rediskitlock", "\"group\":\"orders\"");
			assertThat(locks).contains("\"fencingToken\":").doesNotContain("orders:99");
			assertThat(slowPayment.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(get("/actuator/health").body()).contains("\"status\":\"UP\"");
		HttpResponse<String> metric = get("/actuator/metrics/rediskit.lock.acquire?tag=lock:orders&tag=result:acquired");
		assertThat(metric.statusCode()).isEqualTo(200);
		assertThat(metric.body()).contains("\"COUNT\"");
		assertThat(get("/actuator/metrics/rediskit.lock.held").statusCode()).isEqualTo(200);
	}

	private List<HttpResponse<String>> concurrently(int requests, String path) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(requests);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<HttpResponse<String>>> futures = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				futures.add(executor.submit(() -> {
					start.await();
					return post(path);
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

	private String awaitBody(String path, String expected) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			String body = get(path).body();
			if (body.contains(expected) || System.nanoTime() > deadline) {
				assertThat(body).contains(expected);
				return body;
			}
			Thread.sleep(20);
		}
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

}

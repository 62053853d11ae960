package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample's reactive endpoints over HTTP against a real redis-server started by the test. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ReactiveSampleTests extends SampleHttpTests {

	@AfterEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void aRateLimitedMonoAnswers429OverTheLimit() throws Exception {
		for (int i = 0; i < 5; i++) {
			assertThat(send(get("/api/reactive/quote")).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> rejected = send(get("/api/reactive/quote"));
		assertThat(rejected.statusCode()).isEqualTo(429);
		assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void aLockedMonoHoldsItsLockUntilTheReportIsBuilt() throws Exception {
		CompletableFuture<HttpResponse<String>> first = this.http.sendAsync(post("/api/reactive/reports/q3"),
				HttpResponse.BodyHandlers.ofString());
		String key = "rk:lock:{reactive-report:q3}";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!Long.valueOf(1).equals(redis.server().command("EXISTS", key))) {
			assertThat(System.nanoTime()).as("the first request holds the lock").isLessThan(deadline);
			Thread.sleep(10);
		}
		HttpResponse<String> second = send(post("/api/reactive/reports/q3"));
		// The first request held the lock from before the second was sent until after it was answered, unless a
		// loaded machine let its 2 s of work end meanwhile.
		if (!first.isDone()) {
			assertThat(second.statusCode()).isEqualTo(409);
		}
		HttpResponse<String> built = first.get(30, TimeUnit.SECONDS);
		assertThat(built.statusCode()).isEqualTo(200);
		assertThat(built.body()).isEqualTo("report q3 built");
		assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		assertThat(send(post("/api/reactive/reports/q3")).statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest get(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).header("X-Client", "ada").GET().build();
	}

	private HttpRequest post(String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
	}

}

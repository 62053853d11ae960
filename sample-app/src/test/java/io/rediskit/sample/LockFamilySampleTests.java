package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's multi-key lock and leader election endpoints: a transfer holds both accounts and frees them, and
 * the configured role is led by this instance, yields and comes back in a higher term.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "redis-kit.lock.leader.instance-name=sample-1", "redis-kit.lock.leader.retry-interval=50ms" })
class LockFamilySampleTests extends SampleHttpTests {

	@Test
	void aTransferHoldsBothAccountsThenFreesThem() throws Exception {
		HttpResponse<String> transfer = post("/transfers?from=A-17&to=B-42");
		assertThat(transfer.statusCode()).isEqualTo(200);
		assertThat(transfer.body()).contains("\"A-17\":", "\"B-42\":", "\"atomic\":true");
		assertThat(redis.server().command("EXISTS", "rk:lock:{account:A-17}")).isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", "rk:lock:{account:B-42}")).isEqualTo(0L);
	}

	@Test
	void theRoleIsLedYieldedAndLedAgainInAHigherTerm() throws Exception {
		long first = awaitTerm(0);
		assertThat(post("/leaders/nightly-digest/yield").statusCode()).isEqualTo(200);
		assertThat(awaitTerm(first)).isGreaterThan(first);
		assertThat(post("/leaders/unknown/yield").statusCode()).isEqualTo(404);
	}

	/** @return the term of this instance's leadership once it is above {@code above} */
	private long awaitTerm(long above) throws Exception {
		long deadline = System.nanoTime() + 20_000_000_000L;
		while (true) {
			String body = this.http.send(HttpRequest.newBuilder(uri("/leaders")).build(),
					HttpResponse.BodyHandlers.ofString()).body();
			if (body.contains("\"leading\":true") && body.contains("\"leader\":\"sample-1\"")) {
				long term = Long.parseLong(body.replaceAll(".*\"term\":(\\d+).*", "$1"));
				if (term > above) {
					return term;
				}
			}
			assertThat(System.nanoTime()).as("leading in a term above " + above + ": " + body).isLessThan(deadline);
			Thread.sleep(20);
		}
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}

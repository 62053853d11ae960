package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's recurring job: its slots (every second here) reach the listener, one message per slot, and the
 * endpoint lists the job with its next slot.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "redis-kit.queue.recurring.daily-digest.cron=* * * * * *")
class DailyDigestSampleTests extends SampleHttpTests {

	@Autowired
	DailyDigest digest;

	@Test
	void eachSlotReachesTheListenerAndTheEndpointListsTheNextOne() throws Exception {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (this.digest.runs() < 2) {
			assertThat(System.nanoTime()).as("two digests built").isLessThan(deadline);
			Thread.sleep(20);
		}
		assertThat(this.digest.lastSlot()).isNotNull();
		assertThat(this.digest.lastSlot().toEpochMilli() % 1000).as("a slot on the second").isZero();
		HttpResponse<String> queues = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/rediskitqueue")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(queues.statusCode()).isEqualTo(200);
		assertThat(queues.body()).contains("\"daily-digest\":{\"queue\":\"digests\",\"schedule\":\"* * * * * *\"",
				"\"zone\":\"Europe/Paris\"", "\"missedSlots\":\"RUN_ONCE\"", "\"nextSlot\":\"");
	}

}

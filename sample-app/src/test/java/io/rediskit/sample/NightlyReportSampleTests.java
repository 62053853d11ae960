package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's scheduled report under {@code @ScheduledLock}: it runs on its trigger, a second trigger within
 * lock-at-least (as another instance's would) is skipped, and the skip shows in the metrics.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.report.interval=1h")
class NightlyReportSampleTests extends SampleHttpTests {

	@Autowired
	NightlyReport report;

	@Test
	void aSecondTriggerWithinLockAtLeastIsSkippedAndCounted() throws Exception {
		// The first trigger of a fixed rate fires at startup, the next not within this test. Its run ended when
		// the lock is kept for lock-at-least, owned by nobody.
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (!"".equals(redis.server().command("HGET", "rk:lock:{nightly-report}", "o"))) {
			assertThat(System.nanoTime()).as("the first run to end").isLessThan(deadline);
			Thread.sleep(20);
		}
		assertThat(this.report.runs()).isEqualTo(1);
		// What a later trigger on another instance does: it finds the slot taken and skips.
		this.report.run();
		assertThat(this.report.runs()).isEqualTo(1);
		HttpResponse<String> skipped = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port
						+ "/actuator/metrics/rediskit.lock.acquire?tag=lock:nightly-report&tag=result:skipped"))
					.build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(skipped.statusCode()).isEqualTo(200);
		assertThat(skipped.body()).contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
	}

}

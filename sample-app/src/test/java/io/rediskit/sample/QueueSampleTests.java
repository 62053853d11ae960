package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's queue story over HTTP: unpaid orders cancelled, paid ones kept, a poison report dead-lettered. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.unpaid-timeout=1s", "sample.payment-delay=10ms",
				"management.endpoint.rediskitqueue.access=unrestricted" })
class QueueSampleTests extends SampleHttpTests {

	@Test
	void anUnpaidOrderIsCancelledAndAPaidOneIsNot() throws Exception {
		assertThat(this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/orders/q1/place"))
			.header("X-Request-Id", "req-q1")
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString()).body()).contains("\"cancellationJob\":\"unpaid-q1\"");
		assertThat(post("/orders/q2/place").statusCode()).isEqualTo(200);
		assertThat(post("/orders/q2/pay").body()).contains("PAID");
		// The job carried the placing request's id as its trace-id header to the listener.
		assertThat(awaitBody("/orders/q1", "CANCELLED")).contains("\"cancelledBy\":\"req-q1\"");
		// The paid order's job was cancelled: nothing is left in the queue, and it stays paid.
		awaitBody("/actuator/rediskitqueue", "\"order-timeouts\":{\"delayed\":0,\"ready\":0,\"inFlight\":0,\"dead\":0");
		assertThat(get("/orders/q2").body()).contains("PAID");
	}

	@Test
	void aPoisonReportLandsInTheDeadLetterQueueWithTheReason() throws Exception {
		post("/reports/poison");
		post("/reports/monthly");
		String reports = awaitBody("/actuator/rediskitqueue/reports", "\"dead\":1");
		assertThat(reports).contains("cannot build report 'poison' (delivery 3)").contains("\"deliveries\":3");
		assertThat(get("/actuator/health").body()).contains("rediskitqueue");
	}

	@Test
	void aReportCanBeAskedForAtAPriority() throws Exception {
		assertThat(post("/reports/urgent?priority=high").body()).contains("\"priority\":\"high\"");
		assertThat(post("/reports/archive?priority=low").body()).contains("\"priority\":\"low\"");
		assertThat(post("/reports/other?priority=urgent").statusCode()).isEqualTo(400);
		awaitBody("/actuator/rediskitqueue/reports", "\"ready\":0,\"inFlight\":0");
	}

	@Test
	void theEndpointPausesAndResumesAQueueAndOneListener() throws Exception {
		assertThat(postJson("/actuator/rediskitqueue/digests/pause", "{}").body()).contains("\"paused\":true");
		assertThat(get("/actuator/rediskitqueue/digests").body()).contains("\"paused\":true");
		assertThat(postJson("/actuator/rediskitqueue/digests/resume", "{}").body()).contains("\"paused\":false");
		String listener = "{\"listener\": \"dailyDigest.build\"}";
		assertThat(postJson("/actuator/rediskitqueue/digests/pause", listener).body())
			.as("the listener id the caller sent is not repeated").doesNotContain("dailyDigest.build")
			.contains("\"paused\":true");
		assertThat(get("/actuator/rediskitqueue/digests").body()).as("the queue itself").contains("\"paused\":false");
		assertThat(postJson("/actuator/rediskitqueue/digests/resume", listener).body()).contains("\"paused\":false");
		assertThat(postJson("/actuator/rediskitqueue/digests/stop", "{}").statusCode()).isEqualTo(400);
	}

	@Test
	void anUnknownQueueAnswers404ToAReadAnd400ToAnActionNotAServerError() throws Exception {
		HttpResponse<String> read = get("/actuator/rediskitqueue/digest");
		assertThat(read.statusCode()).as("a typo in the queue's name, as Spring Boot's endpoints answer one").isEqualTo(404);
		assertThat(postJson("/actuator/rediskitqueue/digest/pause", "{}").statusCode()).isEqualTo(400);
		assertThat(postJson("/actuator/rediskitqueue/digest", "{\"max\": 1}").statusCode()).isEqualTo(400);
		assertThat(get("/actuator/rediskitqueue/digests").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> postJson(String path, String json) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private String awaitBody(String path, String expected) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (true) {
			String body = get(path).body();
			if (body.contains(expected)) {
				return body;
			}
			assertThat(System.nanoTime()).as(path + " shows " + expected + "; last: " + body).isLessThan(deadline);
			Thread.sleep(100);
		}
	}

	private HttpResponse<String> post(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}

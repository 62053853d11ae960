package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** A flow and a batch over HTTP: a book assembled from its chapters' results, a newsletter's callback once. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PublishingSampleTests extends SampleHttpTests {

	@Test
	void aBookIsAssembledFromItsChaptersResults() throws Exception {
		assertThat(post("/books/guide/export?chapters=4").body()).contains("\"book\":\"guide\"");
		// 10 + 20 + 30 + 40 pages, returned by the chapters' handlers and read by the book's.
		assertThat(awaitBody("/books/guide", "ASSEMBLED")).contains("\"pages\":100");
	}

	@Test
	void aNewslettersCallbackRunsOnceEveryMailWasSent() throws Exception {
		assertThat(post("/newsletters/june?recipients=6").body()).contains("\"batch\":\"newsletter-june\"");
		String done = awaitBody("/newsletters/june", "\"completedBy\":\"newsletter-june:complete\"");
		assertThat(done).contains("\"total\":6").contains("\"succeeded\":6").contains("\"pending\":0");
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

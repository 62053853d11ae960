package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code console} profile over HTTP: the console served with actions, without Spring Security (the
 * explicit opt-in), where an action still needs the console's header. The pages themselves are tested in a browser
 * in the starter ({@code ConsoleBrowserTests}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("console")
class ConsoleSampleTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> redis.server().host());
		registry.add("spring.data.redis.port", () -> redis.server().port());
	}

	@LocalServerPort
	int port;

	@Autowired
	QueueRegistry queues;

	final HttpClient http = HttpClient.newHttpClient();

	@Test
	void theConsoleProfileServesThePageAndItsActions() throws Exception {
		HttpResponse<String> bare = send(HttpRequest.newBuilder(uri("/redis-kit")).build());
		assertThat(bare.statusCode()).isEqualTo(308);
		assertThat(bare.headers().firstValue("Location")).hasValue("/redis-kit/");
		HttpResponse<String> page = send(HttpRequest.newBuilder(uri("/redis-kit/")).build());
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("<script src=\"console.js\" defer></script>");
		assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(
				(policy) -> assertThat(policy).contains("script-src 'self'"));
		assertThat(send(HttpRequest.newBuilder(uri("/redis-kit/api/queues")).build()).body())
			.contains("\"order-timeouts\":{", "\"reports\":{");

		// The cluster-wide view: this instance, by heartbeat, with the queues it consumes and the role it stands for.
		String instances = send(HttpRequest.newBuilder(uri("/redis-kit/api/instances")).build()).body();
		assertThat(instances).contains("\"heartbeat\":true", "\"application\":\"redis-kit-sample\"",
				"\"alive\":true", "\"queue:order-timeouts\"", "\"candidate:nightly-digest\"");
		assertThat(send(HttpRequest.newBuilder(uri("/redis-kit/api/caches")).build()).body())
			.contains("\"name\":\"products\"");

		RedisQueue<String> digests = this.queues.get("digests", String.class);
		digests.enqueue("kept", Duration.ofHours(1)); // not due: the sample's consumer leaves it alone
		HttpRequest.Builder purge = HttpRequest.newBuilder(uri("/redis-kit/api/queue/purge?name=digests"))
			.POST(HttpRequest.BodyPublishers.noBody());
		assertThat(send(purge.build()).statusCode()).isEqualTo(403);
		assertThat(digests.stats().delayed()).isEqualTo(1);
		HttpResponse<String> purged = send(purge.header("X-Redis-Kit-Console", "action").build());
		assertThat(purged.statusCode()).isEqualTo(200);
		assertThat(purged.body()).isEqualTo("{\"purged\":1}");
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

}

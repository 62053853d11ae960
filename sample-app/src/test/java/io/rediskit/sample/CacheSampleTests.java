package io.rediskit.sample;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.rediskit.bloom.BloomFilterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's story of the cached product pages, over HTTP against a real redis-server. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.catalog-latency=20ms")
class CacheSampleTests extends SampleHttpTests {

	final JsonMapper json = JsonMapper.builder().build();

	@Autowired
	BloomFilterRegistry filters;

	@Test
	void aProductPageAsksTheCatalogOnceThenComesFromTheCache() throws Exception {
		long before = lookups(send("GET", "/api/catalog/41"));
		HttpResponse<String> again = send("GET", "/api/catalog/41");
		assertThat(again.statusCode()).isEqualTo(200);
		assertThat(body(again)).containsEntry("name", "Product 41");
		assertThat(lookups(again)).isEqualTo(before);
	}

	@Test
	void aRenameEvictsThePage() throws Exception {
		send("GET", "/api/catalog/42");
		assertThat(send("PUT", "/api/catalog/42?name=Lamp").statusCode()).isEqualTo(204);
		assertThat(body(send("GET", "/api/catalog/42"))).containsEntry("name", "Lamp");
	}

	@Test
	void anUnknownIdIsA404CachedForTheNullTtl() throws Exception {
		HttpResponse<String> first = send("GET", "/api/catalog/4242");
		assertThat(first.statusCode()).isEqualTo(404);
		HttpResponse<String> second = send("GET", "/api/catalog/4242");
		assertThat(second.statusCode()).isEqualTo(404);
		assertThat(lookups(second)).isEqualTo(lookups(first));
	}

	@Test
	void anIdTheCatalogNeverHadNeverReachesIt() throws Exception {
		// The starter seeds the filter from the catalog in the background at startup; until then every id is looked up.
		assertThat(this.filters.seedAsync("products").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		long before = lookups(send("GET", "/api/catalog/43"));
		HttpResponse<String> unknown = send("GET", "/api/catalog/no-such-product");
		assertThat(unknown.statusCode()).isEqualTo(404);
		assertThat(lookups(unknown)).isEqualTo(before);
	}

	@Test
	void anEvictionFromACacheTheEndpointDoesNotListAnswers400WithoutTheName() throws Exception {
		// A typo of a valid name, and a name the manager refuses (once a server error).
		for (String unknown : new String[] { "prodcuts", "%3Cimg%20src%3Dx%3E" }) {
			HttpResponse<String> clear = send("DELETE", "/actuator/rediskitcache/" + unknown);
			assertThat(clear.statusCode()).isEqualTo(400);
			Map<String, Object> error = body(clear);
			assertThat(error.remove("path")).as("Spring Boot's error page shows the path").isNotNull();
			assertThat(error.toString()).doesNotContain("prodcuts").doesNotContain("img");
			assertThat(send("DELETE", "/actuator/rediskitcache/" + unknown + "/41").statusCode()).isEqualTo(400);
		}
		send("GET", "/api/catalog/44");
		assertThat(send("DELETE", "/actuator/rediskitcache/products/44").statusCode()).isEqualTo(200);
	}

	private HttpResponse<String> send(String method, String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private long lookups(HttpResponse<String> response) {
		return ((Number) body(response).get("catalogLookups")).longValue();
	}

	@SuppressWarnings("unchecked")
	private Map<String, Object> body(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Map.class);
	}

}

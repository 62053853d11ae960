package io.rediskit.sample;

import java.net.http.HttpClient;

import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What the sample's HTTP tests share: a redis-server of their own for the class, the application pointed at it,
 * the application's port and an HTTP client. Subclasses carry {@code @SpringBootTest(webEnvironment =
 * RANDOM_PORT)} with their own properties. Each class gets a server on a new port, so its application context
 * is closed after it ({@link DirtiesContext}): classes of the same configuration would otherwise share a cached
 * context pointing at the port of a server already stopped.
 */
@DirtiesContext
abstract class SampleHttpTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> redis.server().host());
		registry.add("spring.data.redis.port", () -> redis.server().port());
	}

	@LocalServerPort
	int port;

	final HttpClient http = HttpClient.newHttpClient();

}

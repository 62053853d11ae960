package io.rediskit.autoconfigure.cache;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.Cache;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A context that closes ends the cache managers' subscription and tracking connections before Spring Data Redis's
 * connection factory stops: a clean shutdown logs neither a loss of the near caches nor Lettuce's warnings about
 * connections it had already closed (both seen on every shutdown of an application that used a cache).
 */
@ExtendWith(OutputCaptureExtension.class)
class CacheShutdownTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				CacheAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.cache.caches.products.near-cache.enabled=true");

	@Test
	void aClosingContextEndsTheCacheConnectionsBeforeTheConnectionFactoryStops(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			Cache products = context.getBean(RedisKitCacheManager.class).getCache("products");
			// A load subscribes the single-flight channel and the near cache turns tracking on: both connections open.
			assertThat(products.get("7", () -> "item-7")).isEqualTo("item-7");
			assertThat(products.get("7", () -> "other")).isEqualTo("item-7");
			String clients = String.valueOf(redis.server().command("CLIENT", "LIST"));
			assertThat(clients.lines()).as("a tracking connection and a subscriber, before the close")
				.anyMatch((line) -> line.matches(".* flags=\\S*t\\S* .*"))
				.anyMatch((line) -> line.matches(".* sub=[1-9].*"));
		});
		assertThat(output).doesNotContain("Connection is already closed")
			.doesNotContain("Near caches flushed and bypassed");
	}

}

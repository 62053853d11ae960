package io.rediskit.autoconfigure.console;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.cache.CacheAutoConfiguration;
import io.rediskit.autoconfigure.cache.CacheEndpointAutoConfiguration;
import io.rediskit.autoconfigure.cache.RedisCacheEndpoint;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Two instances on one Redis: an operator on one evicts from and clears, through the {@code rediskitcache} endpoint
 * and the console's actions, a cache only the other uses, as named in its heartbeat; the other's near cache drops
 * its copies (pub/sub, so the messages are its only news), the operator's instance makes no cache, and a name no
 * live instance uses is still a bad request that echoes nothing.
 */
class CacheActionsAcrossInstancesTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, CacheAutoConfiguration.class, CacheEndpointAutoConfiguration.class,
			EndpointAutoConfiguration.class, InstancesAutoConfiguration.class, ConsoleAutoConfiguration.class);

	private static final String HOSTILE = "<img src=x onerror=alert(1)>";

	private final ApplicationContextRunner worker = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(), "spring.application.name=orders",
				"redis-kit.console.enabled=true", "redis-kit.console.heartbeat.interval=1s",
				"redis-kit.cache.near-cache.enabled=true", "redis-kit.cache.near-cache.invalidation=pubsub");

	private final WebApplicationContextRunner operator = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(), "spring.application.name=backoffice",
				"redis-kit.console.enabled=true", "redis-kit.cache.caches.products.ttl=1h",
				"management.endpoints.web.exposure.include=rediskitcache");

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void aCacheOnlyAnotherLiveInstanceUsesIsEvictedAndClearedThereWithoutBeingMadeHere() {
		this.worker.run((other) -> {
			RedisKitCache orders = other.getBean(RedisKitCacheManager.class).getCache("orders");
			await("the near cache active", orders::nearCacheActive);
			// Written around the caches: no invalidation of the worker's own that could arrive late.
			redis.server().command("SET", "rk:cache:{orders:o-1}", "\"paid\"");
			redis.server().command("SET", "rk:cache:{orders:o-2}", "\"open\"");
			for (int i = 0; i < 50 && orders.nearCacheSize() < 2; i++) {
				assertThat(orders.get("o-1").get()).isEqualTo("paid");
				assertThat(orders.get("o-2").get()).isEqualTo("open");
			}
			assertThat(orders.nearCacheSize()).isEqualTo(2);
			// The cache was first used after the heartbeat that started with the worker; the next one names it.
			InstanceRegistry instancesOfOther = other.getBean(InstanceRegistry.class);
			instancesOfOther.beatNow();
			this.operator.run((context) -> {
				RedisCacheEndpoint endpoint = context.getBean(RedisCacheEndpoint.class);
				ConsoleActions actions = context.getBean(ConsoleActions.class);
				assertThat(endpoint.evict("orders", "o-1")).containsEntry("evicted", true);
				await("o-1 dropped from the worker's near cache", () -> orders.nearCacheSize() == 1);
				assertThat(orders.get("o-1")).isNull();
				assertThat(actions.evictCacheKey("operator", "orders", "o-1")).containsEntry("evicted", false);
				assertThat(actions.clearCache("operator", "orders")).containsEntry("cleared", true);
				await("the worker's near cache cleared", () -> orders.nearCacheSize() == 0);
				assertThat(orders.get("o-2")).isNull();
				assertThat(redis.server().command("EXISTS", "rk:cache:{orders:o-2}")).isEqualTo(0L);
				assertThat(endpoint.clear("orders")).containsEntry("cleared", true);
				assertThat(context.getBean(RedisKitCacheManager.class).getCacheNames()).containsExactly("products");
				assertThat(endpoint.caches()).extracting(RedisCacheEndpoint.CacheDescriptor::name)
					.containsExactly("products");
				for (String unknown : new String[] { "prodcuts", HOSTILE }) {
					refused(endpoint, actions, unknown);
				}
				// A stopped heartbeat: the worker is listed, gone, three intervals later, and its caches with it.
				instancesOfOther.stop();
				InstanceRegistry instances = context.getBean(InstanceRegistry.class);
				await("the worker listed gone", () -> instances.list().stream()
					.noneMatch((instance) -> instance.alive() && instance.info().application().equals("orders")));
				refused(endpoint, actions, "orders");
				assertThat(context.getBean(RedisKitCacheManager.class).getCacheNames()).containsExactly("products");
			});
		});
	}

	private static void refused(RedisCacheEndpoint endpoint, ConsoleActions actions, String name) {
		assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.clear(name))
			.withMessage("No cache is named so");
		assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.evict(name, "o-1"))
			.withMessage("No cache is named so");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> actions.clearCache("operator", name))
			.withMessage("No cache is named so");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> actions.evictCacheKey("operator", name, "o-1"))
			.withMessage("No cache is named so");
	}

	private static void await(String condition, BooleanSupplier met) {
		long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
		while (!met.getAsBoolean() && System.nanoTime() < deadline) {
			// Some conditions are read from Redis: polled, not spun.
			LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
		}
		assertThat(met.getAsBoolean()).as(condition).isTrue();
	}

}

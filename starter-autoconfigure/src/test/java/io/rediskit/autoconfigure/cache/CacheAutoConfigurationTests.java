package io.rediskit.autoconfigure.cache;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bloom.BloomAutoConfiguration;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheInvalidation;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.cache.OutagePolicy;
import io.rediskit.cache.SingleFlight;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Wiring of the cache auto-configurations: the manager as the application's cache manager behind
 * {@code @Cacheable}, per-cache settings, back-off, metrics, endpoint, health, and startup failures that name the
 * property.
 */
class CacheAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				CacheAutoConfiguration.class, CacheMetricsAutoConfiguration.class,
				CacheEndpointAutoConfiguration.class, CacheHealthAutoConfiguration.class,
				EndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.cache.trusted-packages=io.rediskit.autoconfigure.cache");

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void theManagerServesCacheableMethodsWithConfiguredCachesMetricsEndpointAndHealth() {
		this.runner.withUserConfiguration(CatalogConfiguration.class)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.cache.ttl=5m", "redis-kit.cache.caches.products.ttl=1h",
					"redis-kit.cache.caches.products.ttl-jitter=0", "redis-kit.cache.caches.products.near-cache.enabled=true",
					"redis-kit.cache.caches.products.near-cache.max-entries=500",
					"management.endpoints.web.exposure.include=rediskitcache")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisKitCacheManager manager = context.getBean(RedisKitCacheManager.class);
				assertThat(context.getBean(CacheManager.class)).isSameAs(manager);
				assertThat(manager.spec("products")).isEqualTo(CacheSpec.defaults()
					.withTtl(Duration.ofHours(1))
					.withTtlJitter(0)
					.withNearCache(new NearCacheSpec(500, NearCacheSpec.DEFAULT_TTL)));
				assertThat(manager.spec("other").ttl()).isEqualTo(Duration.ofMinutes(5));
				Catalog catalog = context.getBean(Catalog.class);
				assertThat(catalog.find(7)).isEqualTo(new Item(7, "item-7"));
				assertThat(catalog.find(7)).isEqualTo(new Item(7, "item-7"));
				assertThat(catalog.loads()).isEqualTo(1);
				assertThat((Long) redis.server().command("PTTL", "rk:cache:{products:7}")).isGreaterThan(3_500_000L);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.cache.gets").tag("cache", "products").tag("result", "miss").counter()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.cache.loads").tag("result", "success").timer().count()).isEqualTo(1);
				RedisCacheEndpoint endpoint = context.getBean(RedisCacheEndpoint.class);
				assertThat(endpoint.caches()).extracting(RedisCacheEndpoint.CacheDescriptor::name).contains("products");
				// The near cache was used, so its mode is decided: the server offers tracking over RESP3.
				assertThat(endpoint.caches()).filteredOn((cache) -> cache.name().equals("products"))
					.extracting(RedisCacheEndpoint.CacheDescriptor::nearCacheInvalidation)
					.containsExactly("tracking");
				// Durations as properties take them, as in every redis-kit endpoint (never PT1H).
				assertThat(endpoint.caches()).filteredOn((cache) -> cache.name().equals("products"))
					.singleElement()
					.satisfies((cache) -> {
						assertThat(cache.settings().ttl()).isEqualTo("1h");
						assertThat(cache.settings().nearCache().ttl()).isEqualTo("1m");
						assertThat(cache.settings().staleWhileRevalidate()).isEqualTo("0s");
					});
				assertThat(endpoint.evict("products", "7")).containsEntry("evicted", true);
				assertThat(catalog.find(7)).isEqualTo(new Item(7, "item-7"));
				assertThat(catalog.loads()).isEqualTo(2);
				Health health = context.getBean(CacheHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails().get("products")).asString().endsWith("invalidated by tracking");
			});
	}

	@Test
	void anEndpointActionOnACacheNotListedIsABadRequestThatMakesNoCacheAndEchoesNoName() {
		this.runner.withPropertyValues("redis-kit.cache.caches.products.ttl=1h",
				"management.endpoints.web.exposure.include=rediskitcache")
			.run((context) -> {
				RedisCacheEndpoint endpoint = context.getBean(RedisCacheEndpoint.class);
				for (String unknown : new String[] { "prodcuts", "<img src=x onerror=alert(1)>" }) {
					assertThatExceptionOfType(InvalidEndpointRequestException.class)
						.isThrownBy(() -> endpoint.clear(unknown))
						.withMessage("No cache is named so");
					assertThatExceptionOfType(InvalidEndpointRequestException.class)
						.isThrownBy(() -> endpoint.evict(unknown, "7"))
						.withMessage("No cache is named so");
				}
				assertThat(context.getBean(RedisKitCacheManager.class).getCacheNames()).containsExactly("products");
				assertThat(endpoint.clear("products")).containsEntry("cleared", true);
				assertThat(endpoint.evict("products", "7")).containsEntry("evicted", false);
			});
	}

	@Test
	void anApplicationCacheManagerWinsAndTheFactoryBuildsOneBesideIt() {
		this.runner.withBean(CacheManager.class, ConcurrentMapCacheManager::new).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RedisKitCacheManager.class);
			try (RedisKitCacheManager own = context.getBean(RedisKitCacheManagerFactory.class).create()) {
				own.getCache("side").put("k", "v");
				assertThat(own.getCache("side").get("k").get()).isEqualTo("v");
			}
		});
	}

	@Test
	void refreshOutagePolicyAndBloomFilterBindPerCacheOverTheDefaults() {
		this.runner.withConfiguration(AutoConfigurations.of(BloomAutoConfiguration.class,
				TaskExecutionAutoConfiguration.class))
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000",
					"redis-kit.cache.near-cache.enabled=true", "redis-kit.cache.early-refresh=1",
					"redis-kit.cache.caches.products.stale-while-revalidate=30s",
					"redis-kit.cache.caches.products.outage-policy=serve-stale",
					"redis-kit.cache.caches.products.bloom-filter=product-ids",
					"redis-kit.cache.caches.products.single-flight=every-miss")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				CacheSpec products = context.getBean(RedisKitCacheManager.class).spec("products");
				assertThat(products.earlyRefresh()).isEqualTo(1);
				assertThat(products.staleWhileRevalidate()).isEqualTo(Duration.ofSeconds(30));
				assertThat(products.outagePolicy()).isEqualTo(OutagePolicy.SERVE_STALE);
				assertThat(products.bloomFilter()).isEqualTo("product-ids");
				assertThat(products.singleFlight()).isEqualTo(SingleFlight.EVERY_MISS);
				assertThat(context.getBean(RedisKitCacheManager.class).spec("other").outagePolicy())
					.isEqualTo(OutagePolicy.BYPASS);
			});
	}

	@Test
	void reloadsRunOnTheApplicationsExecutorAndWithoutOneACacheThatReloadsFailsStartup() {
		ApplicationContextRunner reloading = this.runner.withPropertyValues(
				"redis-kit.cache.caches.rates.stale-while-revalidate=30s", "redis-kit.cache.caches.rates.ttl=200ms",
				"redis-kit.cache.caches.rates.ttl-jitter=0");
		reloading.run((context) -> assertThat(context).getFailure().rootCause()
			.hasMessageContaining("redis-kit.cache.caches.rates.stale-while-revalidate")
			.hasMessageContaining("the application has none"));
		reloading.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed());
		AtomicInteger given = new AtomicInteger();
		reloading.withBean("reloads", Executor.class, () -> (task) -> {
			given.incrementAndGet();
			task.run();
		}).run((context) -> {
			assertThat(context).hasNotFailed();
			Cache rates = context.getBean(RedisKitCacheManager.class).getCache("rates");
			assertThat(rates.get("eur", () -> "1.08")).isEqualTo("1.08");
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			while ((Long) redis.server().command("PTTL", "rk:cache:{rates:eur}") >= 30_000
					&& System.nanoTime() < deadline) {
				Thread.onSpinWait();
			}
			assertThat(rates.get("eur", () -> "1.09")).as("served stale while the reload runs").isEqualTo("1.08");
			assertThat(given.get()).isEqualTo(1);
			assertThat(rates.get("eur", () -> "1.10")).isEqualTo("1.09");
		});
	}

	@Test
	void invalidRefreshAndOutageSettingsFailStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.cache.caches.products.early-refresh=-1").run((context) ->
			assertThat(context).getFailure().rootCause()
				.hasMessageContaining("redis-kit.cache.caches.products.early-refresh must be from 0 (off) to 100"));
		this.runner.withPropertyValues("redis-kit.cache.outage-policy=serve-stale").run((context) ->
			assertThat(context).getFailure().rootCause()
				.hasMessageContaining("redis-kit.cache.outage-policy serve-stale serves the near cache's copies"));
		this.runner.withPropertyValues("redis-kit.cache.caches.products.bloom-filter=nowhere").run((context) ->
			assertThat(context).getFailure().rootCause().isInstanceOf(InvalidPropertiesException.class)
				.hasMessageContaining("redis-kit.cache.caches.products.bloom-filter names the Bloom filter 'nowhere'"));
		this.runner.withConfiguration(AutoConfigurations.of(BloomAutoConfiguration.class))
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000",
					"redis-kit.cache.bloom-filter=product-id")
			.run((context) -> assertThat(context).getFailure().rootCause()
				.isInstanceOf(InvalidPropertiesException.class)
				.hasMessageContaining("redis-kit.cache.bloom-filter names the Bloom filter 'product-id', which does "
						+ "not exist (did you mean 'product-ids'?): configure redis-kit.bloom.filters.product-id"));
		this.runner.withConfiguration(AutoConfigurations.of(BloomAutoConfiguration.class))
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000",
					"redis-kit.cache.caches.products.bloom-filter=prodcut-ids",
					"redis-kit.cache.caches.orders.bloom-filter=order-ids")
			.run((context) -> {
				FailureAnalysis analysis = StartupFailures.analyze(context);
				assertThat(analysis.getDescription())
					.contains("Property: redis-kit.cache.caches.products.bloom-filter\n    Value: \"prodcut-ids\"\n")
					.contains("names the Bloom filter 'prodcut-ids', which does not exist"
							+ " (did you mean 'product-ids'?): configure redis-kit.bloom.filters.prodcut-ids"
							+ " or create it in code before the cache manager")
					.as("nothing close enough to be a typo")
					.contains("names the Bloom filter 'order-ids', which does not exist: configure "
							+ "redis-kit.bloom.filters.order-ids");
			});
	}

	@Test
	void aCacheAtOddsWithTheDefaultsItInheritsFailsStartupWithAnAnalysisNamingThePropertyAndTheCache() {
		// Each cache alone is valid; only its combination with the defaults is not (these stopped startup with a
		// stack trace naming neither the property nor the cache).
		this.runner.withPropertyValues("redis-kit.cache.caches.prices.outage-policy=serve-stale").run((context) -> {
			FailureAnalysis analysis = StartupFailures.analyze(context);
			assertThat(analysis.getDescription())
				.contains("Property: redis-kit.cache.caches.prices.outage-policy\n    Value: \"serve-stale\"\n")
				.contains("Reason: redis-kit.cache.caches.prices.outage-policy serve-stale serves the near cache's copies"
						+ " and needs a near cache; enable it or use bypass (cache 'prices')");
		});
		this.runner.withPropertyValues("redis-kit.cache.near-cache.max-entries=0",
				"redis-kit.cache.caches.prices.near-cache.enabled=true").run((context) -> {
			FailureAnalysis analysis = StartupFailures.analyze(context);
			assertThat(analysis.getDescription())
				.contains("Property: redis-kit.cache.near-cache.max-entries\n    Value: \"0\"\n")
				.contains("Reason: redis-kit.cache.near-cache.max-entries must be at least 1, was 0 (cache 'prices',"
						+ " which inherits it)");
		});
		this.runner.withPropertyValues("redis-kit.cache.near-cache.enabled=true", "redis-kit.cache.outage-policy=serve-stale",
				"redis-kit.cache.caches.prices.near-cache.enabled=false").run((context) ->
			assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.cache.outage-policy\n")
				.contains("(cache 'prices', which inherits it)"));
	}

	@Test
	void offWhenDisabled() {
		this.runner.withPropertyValues("redis-kit.cache.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisKitCacheManager.class));
	}

	@Test
	void theNearCachesInvalidationBindsPerCacheOverTheDefault() {
		this.runner.withPropertyValues("redis-kit.cache.near-cache.enabled=true",
				"redis-kit.cache.near-cache.invalidation=tracking",
				"redis-kit.cache.caches.prices.near-cache.invalidation=pubsub")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedisKitCacheManager manager = context.getBean(RedisKitCacheManager.class);
				assertThat(manager.spec("other").nearCache().invalidation()).isEqualTo(NearCacheInvalidation.TRACKING);
				assertThat(manager.spec("prices").nearCache().invalidation()).isEqualTo(NearCacheInvalidation.PUBSUB);
			});
		this.runner.withPropertyValues("redis-kit.cache.near-cache.enabled=true")
			.run((context) -> assertThat(context.getBean(RedisKitCacheManager.class).spec("other").nearCache()
				.invalidation()).isEqualTo(NearCacheInvalidation.AUTO));
		this.runner.withPropertyValues("redis-kit.cache.near-cache.invalidation=client-side")
			.run((context) -> assertThat(context).getFailure().rootCause()
				.hasMessageContaining("client-side"));
	}

	@Test
	void invalidSettingsFailStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.cache.caches.products.ttl-jitter=1.5").run((context) ->
			assertThat(context).getFailure().rootCause()
				.hasMessageContaining("redis-kit.cache.caches.products.ttl-jitter must be from 0 to below 1"));
		this.runner.withPropertyValues("redis-kit.cache.near-cache.enabled=true", "redis-kit.cache.near-cache.max-entries=0")
			.run((context) -> assertThat(context).getFailure().rootCause()
				.hasMessageContaining("redis-kit.cache.near-cache.max-entries must be at least 1"));
		this.runner.withPropertyValues("redis-kit.cache.null-ttl=0s").run((context) ->
			assertThat(context).getFailure().rootCause().hasMessageContaining("redis-kit.cache.null-ttl must be at least 1ms"));
		this.runner.withPropertyValues("redis-kit.cache.caches[bad.name].ttl=1m").run((context) ->
			assertThat(context).getFailure().rootCause().hasMessageContaining("invalid cache name"));
		this.runner.withPropertyValues("redis-kit.cache.caches.products.tll=1m").run((context) ->
			assertThat(context).hasFailed());
	}

	/** A cached value of the trusted package. */
	record Item(long id, String name) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class CatalogConfiguration {

		@Bean
		Catalog catalog() {
			return new Catalog();
		}

	}

	static class Catalog {

		private final AtomicInteger loads = new AtomicInteger();

		@Cacheable(cacheNames = "products", sync = true)
		public Item find(long id) {
			this.loads.incrementAndGet();
			return new Item(id, "item-" + id);
		}

		public int loads() {
			return this.loads.get();
		}

	}

}

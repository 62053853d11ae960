package io.rediskit.autoconfigure.recent;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.metrics.MicrometerOperationMeters;
import io.rediskit.autoconfigure.metrics.OperationMetricsAutoConfiguration;
import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of the recent items auto-configurations: beans, back-off, metrics, invalid properties. */
class RecentAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				RecentAutoConfiguration.class, OperationMetricsAutoConfiguration.class, ObservationAutoConfiguration.class,
				io.rediskit.autoconfigure.rank.RankAutoConfiguration.class,
				io.rediskit.autoconfigure.rank.RankMetricsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void configuredListsReachTheRegistryAndCallsAreTimed() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.recent-items.lists.viewed.capacity=5", "redis-kit.recent-items.lists.viewed.idle-ttl=7d",
					"redis-kit.recent-items.lists.viewed.trending-period=10m",
					"redis-kit.recent-items.lists.viewed.trending-buckets=10")
			.run((context) -> {
				// Beside the leaderboards' metrics: each area's beans have names of their own.
				assertThat(context).hasSingleBean(MicrometerOperationMeters.class)
					.hasSingleBean(io.rediskit.autoconfigure.rank.MicrometerLeaderboardListener.class);
				RecentItems viewed = context.getBean(RecentItemsRegistry.class).get("viewed");
				assertThat(viewed.spec().capacity()).isEqualTo(5);
				assertThat(viewed.spec().idleTtl()).isEqualTo(Duration.ofDays(7));
				assertThat(viewed.spec().trendingPeriod()).isEqualTo(Duration.ofMinutes(10));
				viewed.view("ada", "p" + System.nanoTime());
				assertThat(context.getBean(MeterRegistry.class).get("rediskit.recentitems.operations")
					.tags("list", "viewed", "operation", "view", "result", "success").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("redis-kit.recent-items.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RecentItemsRegistry.class));
		this.runner.run((context) -> assertThat(context).hasSingleBean(RecentItemsRegistry.class)
			.doesNotHaveBean(MicrometerOperationMeters.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.recent-items.lists.l.capacity=0                           | redis-kit.recent-items.lists.l.capacity must be from 1 to 1000
			redis-kit.recent-items.lists.l.idle-ttl=0s                          | redis-kit.recent-items.lists.l.idle-ttl must be at least 1s
			redis-kit.recent-items.lists.l.trending-buckets=7                   | redis-kit.recent-items.lists.l.trending-buckets must divide the trending period
			redis-kit.recent-items.lists.l.trending-cache-ttl=2h                | redis-kit.recent-items.lists.l.trending-cache-ttl must be from 1ms to 1h
			redis-kit.recent-items.lists.l.size=3                               | redis-kit.recent-items.lists.l.size
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String properties, String message) {
		this.runner.withPropertyValues(properties.split(",")).run((context) -> {
			assertThat(context).hasFailed();
			StringBuilder all = new StringBuilder();
			for (Throwable ex = context.getStartupFailure(); ex != null; ex = ex.getCause()) {
				all.append(ex.getMessage()).append('\n');
			}
			assertThat(all.toString()).contains(message);
		});
	}

}

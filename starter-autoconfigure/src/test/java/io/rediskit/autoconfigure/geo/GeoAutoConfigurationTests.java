package io.rediskit.autoconfigure.geo;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.metrics.OperationMetricsAutoConfiguration;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoPoint;
import io.rediskit.geo.GeoQuery;
import io.rediskit.geo.GeoSharding;
import io.rediskit.geo.GeoUnit;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of the geo auto-configurations. */
class GeoAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				GeoAutoConfiguration.class, GeoMetricsAutoConfiguration.class, OperationMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void configuredIndexesReachTheRegistryAndOperationsAreTimed() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.geo.indexes.bikes.sharding=geohash-cell",
					"redis-kit.geo.indexes.bikes.precision=18", "redis-kit.geo.indexes.bikes.member-ttl=5m")
			.run((context) -> {
				GeoIndex bikes = context.getBean(GeoIndexRegistry.class).get("bikes");
				assertThat(bikes.spec().sharding()).isEqualTo(GeoSharding.GEOHASH_CELL);
				assertThat(bikes.spec().precision()).isEqualTo(18);
				assertThat(bikes.spec().memberTtl()).hasMinutes(5);
				bikes.put("b1", GeoPoint.ofLatLon(48.85, 2.35));
				assertThat(bikes.nearby(GeoQuery.around(GeoPoint.ofLatLon(48.85, 2.35)).withinRadius(1, GeoUnit.KILOMETERS)))
					.hasSize(1);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.geo.operations")
					.tags("index", "bikes", "operation", "nearby", "outcome", "success")
					.timer()
					.count()).isEqualTo(1);
			});
	}

	@Test
	void backsOffWhenDisabledOrDefinedByTheApplication() {
		this.runner.withPropertyValues("redis-kit.geo.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(GeoIndexRegistry.class));
		this.runner.run((context) -> assertThat(context).hasSingleBean(GeoIndexRegistry.class)
			.doesNotHaveBean(MicrometerGeoListener.class));
	}

	@Test
	void invalidIndexSettingsFailStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.geo.indexes.bikes.precision=21").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure()))
				.contains("redis-kit.geo.indexes.bikes.precision must be an even number of bits from 2 to 40, was 21");
		});
		this.runner.withPropertyValues("redis-kit.geo.indexes.bikes.sharding=hexagons")
			.run((context) -> assertThat(context).hasFailed());
		this.runner.withPropertyValues("redis-kit.geo.indexes.bikes.precison=20")
			.run((context) -> assertThat(context).hasFailed());
		this.runner.withPropertyValues("redis-kit.geo.indexes.bikes.member-ttl=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains("redis-kit.geo.indexes.bikes.member-ttl must be at least 1ms");
		});
		this.runner.withPropertyValues("redis-kit.geo.indexes.bikes.member-ttl=1000000d").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains(
					"redis-kit.geo.indexes.bikes.member-ttl must be at most 36500 days (100 years), was 1000000d");
		});
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			all.append(cause.getMessage()).append('\n');
		}
		return all.toString();
	}

}

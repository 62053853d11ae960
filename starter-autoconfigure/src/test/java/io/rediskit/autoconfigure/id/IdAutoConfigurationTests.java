package io.rediskit.autoconfigure.id;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.metrics.OperationMetricsAutoConfiguration;
import io.rediskit.id.IdGenerator;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of the id generator auto-configurations: beans, back-off, metrics, invalid properties. */
class IdAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				IdAutoConfiguration.class, OperationMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void configuredGeneratorsReachTheRegistryAndBlocksAreTimed() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.id.generators.orders.block-size=3")
			.run((context) -> {
				IdGenerator orders = context.getBean(IdGeneratorRegistry.class).get("orders");
				assertThat(orders.spec().blockSize()).isEqualTo(3);
				long first = orders.next();
				for (int i = 1; i < 7; i++) {
					assertThat(orders.next()).isGreaterThan(first);
				}
				assertThat(context.getBean(MeterRegistry.class).get("rediskit.id.blocks")
					.tags("generator", "orders", "result", "success").timer().count()).isEqualTo(3);
			});
	}

	@Test
	void backsOffWhenDisabledAndInvalidSettingsFailStartup() {
		this.runner.withPropertyValues("redis-kit.id.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdGeneratorRegistry.class));
		this.runner.withPropertyValues("redis-kit.id.generators.orders.block-size=0").run((context) -> {
			assertThat(context).hasFailed();
			StringBuilder all = new StringBuilder();
			for (Throwable ex = context.getStartupFailure(); ex != null; ex = ex.getCause()) {
				all.append(ex.getMessage()).append('\n');
			}
			assertThat(all.toString()).contains("redis-kit.id.generators.orders.block-size must be from 1 to 1000000");
		});
	}

}

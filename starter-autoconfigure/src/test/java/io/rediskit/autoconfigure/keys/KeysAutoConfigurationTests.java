package io.rediskit.autoconfigure.keys;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wiring of the key tools: the bean, the gauges of the largest keys, the timers of its calls from their
 * observations, the endpoint off by default, and startup failures that name the property.
 */
class KeysAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				KeysAutoConfiguration.class, KeysMetricsAutoConfiguration.class, EndpointAutoConfiguration.class,
				KeysEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void theEndpointIsOffByDefaultAndReportsWhenTurnedOn() {
		redis.server().flushAll();
		for (int i = 0; i < 300; i++) {
			redis.server().command("HSET", "sample:big", "f" + i, "v");
		}
		redis.server().command("SET", "sample:small", "v");
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=rediskitkeys").run((context) -> assertThat(context).hasSingleBean(KeyTools.class)
			.doesNotHaveBean(RedisKeysEndpoint.class));
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("management.endpoint.rediskitkeys.access=READ_ONLY", "management.endpoints.web.exposure.include=rediskitkeys", "redis-kit.keys.report.top=1")
			.run((context) -> {
				RedisKeysEndpoint.ReportDescriptor report = context.getBean(RedisKeysEndpoint.class).report();
				assertThat(report.keysScanned()).isEqualTo(2);
				assertThat(report.elapsed()).as("text as properties take it, never PT...").matches("\\d+(ms|s|us|ns|m)");
				assertThat(report.largestByMemory()).singleElement().satisfies((info) -> assertThat(info.key()).isEqualTo("sample:big"));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.keys.largest.elements").tag("type", "hash").gauge().value()).isEqualTo(300);
				assertThat(meters.get("rediskit.keys.largest.bytes").tag("type", "hash").gauge().value()).isPositive();
				context.getBean(KeyTools.class).deleteKey("sample:big", DeleteOptions.defaults().withBatchSize(100).withPause(Duration.ZERO));
				assertThat(meters.get("rediskit.keys.deleted.elements").counter().count()).isEqualTo(300);
				assertThat(meters.get("rediskit.keys.deleted").tag("operation", "delete-key").counter().count()).isEqualTo(1);
			});
	}

	@Test
	void eachCallIsTimedFromItsObservationBesideTheListenersCounters() {
		redis.server().flushAll();
		for (int i = 0; i < 300; i++) {
			redis.server().command("HSET", "sample:big", "f" + i, "v");
		}
		// Spring Boot's meter handler (MetricsAutoConfiguration's) times every observation the registry makes.
		this.runner
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> {
				KeyTools keyTools = context.getBean(KeyTools.class);
				keyTools.deleteKey("sample:big", DeleteOptions.defaults().withBatchSize(100));
				keyTools.scan(KeyScanOptions.matching("sample:*")).forEachRemaining((key) -> {
				});
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.keys.operation")
					.tags("name", "keys", "operation", "delete-key", "outcome", "success", "error", "none")
					.timer()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.keys.operation").tags("operation", "scan", "outcome", "success")
					.timer()
					.count()).isEqualTo(1);
				assertThat(meters.get("rediskit.keys.deleted.elements").counter().count()).isEqualTo(300);
			});
	}

	@Test
	void backsOffWhenDisabled() {
		this.runner.withPropertyValues("redis-kit.keys.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(KeyTools.class));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.keys.report.top=0                | redis-kit.keys.report.top must be from 1 to 10000, was 0
			redis-kit.keys.report.top=10001            | redis-kit.keys.report.top must be from 1 to 10000, was 10001
			redis-kit.keys.report.batch-size=-1        | redis-kit.keys.report.batch-size must be from 1 to 10000, was -1
			redis-kit.keys.report.keys-per-second=-5   | redis-kit.keys.report.keys-per-second must not be negative, was -5
			redis-kit.keys.report.samples=-1           | redis-kit.keys.report.samples must not be negative, was -1
			redis-kit.keys.report.pattern=             | redis-kit.keys.report.pattern must not be empty
			""")
	void outOfRangeReportSettingsFailStartupNamingTheProperty(String property, String message) {
		// Without the endpoint too: a bad value is a bad configuration, not a 500 on the first report.
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			StringBuilder messages = new StringBuilder();
			for (Throwable ex = context.getStartupFailure(); ex != null; ex = ex.getCause()) {
				messages.append(ex.getMessage()).append('\n');
			}
			assertThat(messages.toString()).contains(message);
		});
	}

}

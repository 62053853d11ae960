package io.rediskit.autoconfigure.outage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.RedisAvailability;
import io.rediskit.support.RedisUnavailableException;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The availability gate as the starter wires it: in front of the shared executors by default, off with
 * {@code redis-kit.outage.enabled=false}, its interval validated at startup, and its state shown by a metric and
 * a health indicator while a real server is paused.
 */
class OutageAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				OutageMetricsAutoConfiguration.class, OutageHealthAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void theSharedExecutorsAreGuardedByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisAvailability.class)
				.hasSingleBean(RedisAvailabilityHealthIndicator.class)
				.hasSingleBean(MicrometerRedisAvailabilityListener.class);
			ScriptExecutor scripts = context.getBean(ScriptExecutor.class);
			assertThat(scripts.ungated()).isNotSameAs(scripts);
			assertThat(context.getBean(RedisAvailability.class).probeInterval()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void turnedOffEveryCallGoesToRedis() {
		this.runner.withPropertyValues("redis-kit.outage.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RedisAvailability.class)
				.doesNotHaveBean(RedisAvailabilityHealthIndicator.class)
				.doesNotHaveBean(MicrometerRedisAvailabilityListener.class);
			ScriptExecutor scripts = context.getBean(ScriptExecutor.class);
			assertThat(scripts.ungated()).isSameAs(scripts);
		});
	}

	@Test
	void aProbeIntervalThatIsNotPositiveOrAbsurdFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("redis-kit.outage.probe-interval=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redis-kit.outage.probe-interval must be from 1ms to 1m (calls resume about one"
						+ " interval after Redis does), was 0s"));
		// Accepted before: the application then never went back to Redis after an outage.
		this.runner.withPropertyValues("redis-kit.outage.probe-interval=1000000d")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.outage.probe-interval\n")
				.contains("Reason: redis-kit.outage.probe-interval must be from 1ms to 1m (calls resume about one"
						+ " interval after Redis does), was 1000000d"));
		this.runner.withPropertyValues("redis-kit.outage.probe-interval=1m")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aPausedServerShowsAsUnavailableInTheMetricAndTheHealthUntilItAnswers() throws Exception {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			this.runner
				.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.timeout=500ms",
						"redis-kit.outage.probe-interval=100ms")
				.run((context) -> {
					CommandExecutor commands = context.getBean(CommandExecutor.class);
					MeterRegistry meters = context.getBean(MeterRegistry.class);
					RedisAvailabilityHealthIndicator health = context.getBean(RedisAvailabilityHealthIndicator.class);
					byte[] key = "rk:test:{outage}".getBytes(StandardCharsets.UTF_8);
					commands.execute("PFADD", ReturnType.INTEGER, key, key);
					assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
					server.pause();
					try {
						assertThatExceptionOfType(QueryTimeoutException.class)
							.isThrownBy(() -> commands.execute("PFADD", ReturnType.INTEGER, key, key));
						assertThatExceptionOfType(RedisUnavailableException.class)
							.isThrownBy(() -> commands.execute("PFADD", ReturnType.INTEGER, key, key));
						assertThat(meters.get("rediskit.outage.available").gauge().value()).isZero();
						assertThat(meters.get("rediskit.outage.started").counter().count()).isOne();
						assertThat(meters.get("rediskit.outage.refused").counter().count()).isOne();
						assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
						assertThat(health.health(true).getDetails()).containsKey("since");
					}
					finally {
						server.resume();
					}
					long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
					// The gate opens, then tells its listeners: wait for the listener's last step too, not only the gate.
					while ((!context.getBean(RedisAvailability.class).isAvailable()
							|| meters.get("rediskit.outage.duration").timer().count() == 0)
							&& System.nanoTime() < deadline) {
						TimeUnit.MILLISECONDS.sleep(10);
					}
					assertThat(meters.get("rediskit.outage.available").gauge().value()).isOne();
					assertThat(meters.get("rediskit.outage.duration").timer().count()).isOne();
					assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
					assertThat((Long) commands.execute("PFADD", ReturnType.INTEGER, key, key)).isZero();
				});
		}
	}

}

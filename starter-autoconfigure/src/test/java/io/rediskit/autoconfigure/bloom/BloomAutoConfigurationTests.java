package io.rediskit.autoconfigure.bloom;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.bitmap.BitmapAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterAutoConfiguration;
import io.rediskit.autoconfigure.metrics.OperationMetricsAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendar;
import io.rediskit.bitmap.DailyActivity;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.bloom.BloomAnswer;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSeed;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;
import io.rediskit.bloom.BloomMode;
import io.rediskit.counter.BucketSize;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.testsupport.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Wiring of the Bloom filter, unique counter and bitmap auto-configurations: beans, back-off, metrics, the
 * endpoint and health indicator, and startup failures that name the property.
 */
class BloomAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				BloomAutoConfiguration.class, BloomMetricsAutoConfiguration.class, BloomEndpointAutoConfiguration.class,
				BloomHealthAutoConfiguration.class, EndpointAutoConfiguration.class, CounterAutoConfiguration.class,
				BitmapAutoConfiguration.class, OperationMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void theServerIsAskedForNativeFiltersAtStartupOnlyWhenTheApplicationHasAFilter() {
		this.runner.withUserConfiguration(RecordingCommands.class).run((context) -> {
			assertThat(context).hasNotFailed();
			// Nothing to detect for: no "does not offer native Bloom filters" line in the log of every application.
			assertThat(context.getBean(RecordingCommands.class).commands).doesNotContain("COMMAND");
		});
		this.runner.withUserConfiguration(RecordingCommands.class)
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000")
			.run((context) -> assertThat(context.getBean(RecordingCommands.class).commands).contains("COMMAND"));
	}

	@Test
	void aSeedBeanSeedsItsFilterAtStartupAndTheEndpointAndGaugeShowItComplete() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean("productIds", BloomFilterSeed.class, () -> BloomFilterSeed.of("product-ids", () -> List.of("p-1")))
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000",
					"redis-kit.bloom.filters.other.expected-insertions=1000",
					"management.endpoints.web.exposure.include=rediskitbloom")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
				assertThat(filters.hasSeed("product-ids")).isTrue();
				assertThat(filters.seedAsync("product-ids").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
				assertThat(filters.get("product-ids").check("p-2")).isEqualTo(BloomAnswer.NEVER_SEEN);
				assertThat(filters.get("other").check("p-2")).isEqualTo(BloomAnswer.NOT_COMPLETE);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				context.getBean(BloomFilterMetrics.class).bindTo(meters);
				assertThat(meters.get("rediskit.bloom.complete").tag("filter", "product-ids").gauge().value()).isEqualTo(1);
				assertThat(meters.get("rediskit.bloom.complete").tag("filter", "other").gauge().value()).isZero();
				assertThat(context.getBean(RedisBloomEndpoint.class).filters().filters())
					.extracting(RedisBloomEndpoint.FilterDescriptor::name, RedisBloomEndpoint.FilterDescriptor::complete,
							RedisBloomEndpoint.FilterDescriptor::seeded)
					.containsExactly(tuple("other", false, false), tuple("product-ids", true, true));
				Health health = context.getBean(BloomHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("notComplete", List.of("other"));
			});
	}

	@Test
	void aSeedOfAFilterThatDoesNotExistFailsStartupNamingTheProperty() {
		this.runner.withBean("productIds", BloomFilterSeed.class, () -> BloomFilterSeed.of("product-id", List::of))
			.withPropertyValues("redis-kit.bloom.filters.product-ids.expected-insertions=1000")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("'product-id', which does not exist (did you mean 'product-ids'?)")
				.hasMessageContaining("redis-kit.bloom.filters.product-id.expected-insertions"));
	}

	@Test
	void configuredFiltersCountersAndCalendarsAreServedWithMetricsEndpointAndHealth() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.bloom.filters.usernames.expected-insertions=1000",
					"redis-kit.bloom.filters.usernames.false-positive-rate=0.001",
					"redis-kit.bloom.filters.tiny.expected-insertions=10", "redis-kit.bloom.mode=bitmap",
					"redis-kit.counter.counters.page-views.bucket=hourly",
					"redis-kit.counter.counters.page-views.zone=Europe/Paris",
					"redis-kit.counter.counters.page-views.retention=400d",
					"redis-kit.counter.calendars.daily-login.zone=Asia/Tokyo",
					"redis-kit.counter.calendars.daily-login.retention=3650d",
					"redis-kit.counter.activities.dau.zone=Europe/Paris",
					"redis-kit.counter.activities.dau.max-user-id=1000",
					"redis-kit.bloom.filters.growing.expected-insertions=10",
					"redis-kit.bloom.filters.growing.growth.enabled=true",
					"redis-kit.bloom.filters.growing.growth.max-layers=4",
					"management.endpoints.web.exposure.include=rediskitbloom")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
				assertThat(filters.mode()).isEqualTo(BloomMode.BITMAP);
				BloomFilter usernames = filters.get("usernames");
				assertThat(usernames.spec()).isEqualTo(BloomFilterSpec.of(1000, 0.001));
				assertThat(usernames.addAll(List.of("alice", "bob", "alice"))).containsExactly(true, true, false);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.bloom.operations").tag("filter", "usernames").tag("result", "new")
					.counter().count()).isEqualTo(2);
				assertThat(meters.get("rediskit.bloom.operations").tag("result", "existing").counter().count())
					.isEqualTo(1);
				// Spring Boot's metrics auto-configuration binds MeterBinder beans; this context has none of it.
				context.getBean(BloomFilterMetrics.class).bindTo(meters);
				assertThat(meters.get("rediskit.bloom.fill").tag("filter", "usernames").gauge().value()).isPositive();
				filters.get("tiny").addAll(java.util.stream.IntStream.range(0, 100).mapToObj(Integer::toString).toList());
				assertThat(meters.get("rediskit.bloom.over.capacity").tag("filter", "tiny").gauge().value()).isEqualTo(1);
				RedisBloomEndpoint.FiltersDescriptor described = context.getBean(RedisBloomEndpoint.class).filters();
				assertThat(described.filters()).extracting(RedisBloomEndpoint.FilterDescriptor::name)
					.containsExactly("growing", "tiny", "usernames");
				assertThat(described.filters().get(2).info().hashes()).isEqualTo(10);
				assertThat(described.filters().get(0).info().layers()).as("a growing filter's first layer").hasSize(1);
				BloomFilter growing = filters.get("growing");
				assertThat(growing.spec().growth()).isEqualTo(new BloomGrowth(2, 0.5, 4));
				growing.addAll(java.util.stream.IntStream.range(0, 25).mapToObj(Integer::toString).toList());
				assertThat(growing.info().layers()).hasSize(2);
				Health health = context.getBean(BloomHealthIndicator.class).health(true);
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsKeys("usernames", "tiny");
				assertThat((String) health.getDetails().get("warning")).contains("[tiny]");

				UniqueCounter pageViews = context.getBean(UniqueCounterRegistry.class).get("page-views");
				assertThat(pageViews.spec().bucket()).isEqualTo(BucketSize.HOURLY);
				assertThat(pageViews.spec().zone()).isEqualTo(ZoneId.of("Europe/Paris"));
				pageViews.add("v1", "v2");
				assertThat(pageViews.count()).isEqualTo(2);
				assertThat(meters.get("rediskit.counter.operations").tag("counter", "page-views").tag("operation", "add")
					.timer().count()).isEqualTo(1);
				CheckInCalendar logins = context.getBean(BitmapRegistry.class).calendar("daily-login");
				assertThat(logins.checkIn("alice", LocalDate.of(2024, 2, 29))).isTrue();
				assertThat(logins.countInMonth("alice", YearMonth.of(2024, 2))).isEqualTo(1);
				assertThat(meters.get("rediskit.counter.bitmap.operations").tag("name", "daily-login").tag("operation", "check-in")
					.tag("result", "success").timer().count()).isEqualTo(1);
				DailyActivity dau = context.getBean(BitmapRegistry.class).activity("dau");
				assertThat(dau.spec()).isEqualTo(DailyActivitySpec.of(ZoneId.of("Europe/Paris")).withMaxUserId(1000));
				assertThat(dau.markActive(1000, LocalDate.of(2024, 2, 29))).isTrue();
				assertThat(meters.get("rediskit.counter.bitmap.operations").tag("name", "dau").tag("operation", "mark-active")
					.tag("result", "success").timer().count()).isEqualTo(1);
				// Writes past the retention are refused by the server and counted as such, not as successes.
				LocalDate longAgo = LocalDate.now(ZoneId.of("Asia/Tokyo")).minusDays(4000);
				assertThatExceptionOfType(RetentionPassedException.class)
					.isThrownBy(() -> logins.checkIn("alice", longAgo));
				assertThat(meters.get("rediskit.counter.bitmap.operations").tag("name", "daily-login").tag("operation", "check-in")
					.tag("result", "refused").timer().count()).isEqualTo(1);
				assertThatExceptionOfType(RetentionPassedException.class)
					.isThrownBy(() -> pageViews.add("v3", Instant.now().minus(Duration.ofDays(500))));
				assertThat(meters.get("rediskit.counter.operations").tag("counter", "page-views").tag("operation", "add")
					.tag("result", "refused").timer().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.counter.operations").tag("counter", "page-views").tag("operation", "add")
					.tag("result", "success").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void overCapacityCanBeReportedWithAnotherStatus() {
		this.runner.withPropertyValues("redis-kit.bloom.filters.tiny.expected-insertions=10",
				"redis-kit.bloom.health.over-capacity-status=OUT_OF_SERVICE")
			.run((context) -> {
				context.getBean(BloomFilterRegistry.class).get("tiny")
					.addAll(java.util.stream.IntStream.range(0, 100).mapToObj(Integer::toString).toList());
				assertThat(context.getBean(BloomHealthIndicator.class).health(true).getStatus())
					.isEqualTo(Status.OUT_OF_SERVICE);
			});
	}

	@Test
	void eachAreaCanBeSwitchedOffAndEveryBeanBacksOff() {
		this.runner
			.withPropertyValues("redis-kit.bloom.enabled=false", "redis-kit.counter.enabled=false",
					"redis-kit.counter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(BloomFilterRegistry.class)
				.doesNotHaveBean(UniqueCounterRegistry.class)
				.doesNotHaveBean(BitmapRegistry.class)
				.doesNotHaveBean(BloomHealthIndicator.class));
		BloomFilterRegistry own = new BloomFilterRegistry(
				new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory(),
				io.rediskit.support.KeyNaming.defaults(), io.rediskit.bloom.BloomFilterListener.NONE);
		this.runner.withBean(BloomFilterRegistry.class, () -> own)
			.run((context) -> assertThat(context.getBean(BloomFilterRegistry.class)).isSameAs(own));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.bloom.filters.f.false-positive-rate=0.01            | redis-kit.bloom.filters.f.expected-insertions is required
			redis-kit.bloom.filters.f.expected-insertions=0               | redis-kit.bloom.filters.f.expected-insertions must be at least 1
			redis-kit.bloom.filters.f.expected-insertions=10,redis-kit.bloom.filters.f.false-positive-rate=1 | redis-kit.bloom.filters.f.false-positive-rate must be at least
			redis-kit.bloom.filters.f.expected-insertions=10,redis-kit.bloom.filters.f.ttl=0s | redis-kit.bloom.filters.f.ttl must be at least 1ms
			redis-kit.bloom.filters[bad name].expected-insertions=10      | redis-kit.bloom.filters[bad name] has an invalid filter name
			redis-kit.bloom.filters.f.capacity=10                         | capacity
			redis-kit.bloom.mode=fast                                     | redis-kit.bloom.mode
			redis-kit.counter.counters.c.bucket=weekly                    | redis-kit.counter.counters.c.bucket
			redis-kit.counter.counters.c.zone=Mars/Olympus                | redis-kit.counter.counters.c.zone
			redis-kit.counter.counters.c.range-cache-ttl=2h               | redis-kit.counter.counters.c.range-cache-ttl must be from 1ms to 1h
			redis-kit.counter.counters.c.retention=0s                     | redis-kit.counter.counters.c.retention must be at least 1s
			redis-kit.counter.calendars.c.retention=0s                     | redis-kit.counter.calendars.c.retention must be at least 1s
			redis-kit.bloom.filters.f.expected-insertions=10,redis-kit.bloom.filters.f.ttl=1000000d | redis-kit.bloom.filters.f.ttl must be at most 36500 days (100 years), was 1000000d
			redis-kit.counter.counters.c.retention=36501d                 | redis-kit.counter.counters.c.retention must be at most 36500 days (100 years), was 36501d
			redis-kit.counter.calendars.c.retention=1000000d               | redis-kit.counter.calendars.c.retention must be at most 36500 days (100 years), was 1000000d
			redis-kit.counter.calendars[x.y].zone=UTC                      | redis-kit.counter.calendars
			redis-kit.counter.activities.a.max-user-id=-1                  | redis-kit.counter.activities.a.max-user-id must be from 0 to 4294967295
			redis-kit.counter.activities.a.retention=0s                    | redis-kit.counter.activities.a.retention must be at least 1s
			redis-kit.counter.activities[x.y].zone=UTC                     | redis-kit.counter.activities[x.y] has an invalid activity name
			redis-kit.bloom.filters.f.expected-insertions=10,redis-kit.bloom.filters.f.growth.enabled=true,redis-kit.bloom.filters.f.growth.tightening=1 | redis-kit.bloom.filters.f.growth.tightening must be above 0 and below 1
			redis-kit.bloom.filters.f.expected-insertions=100000000,redis-kit.bloom.filters.f.growth.enabled=true | redis-kit.bloom.filters.f.growth.max-layers must be at most 2
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String properties, String message) {
		this.runner.withPropertyValues(properties.split(",")).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains(message);
		});
	}

	@Test
	void aFilterTheNativeModeCannotRunFailsStartupNamingThePropertyNotItsFirstCall() {
		// Started before, and answered 500 on the first add.
		this.runner.withPropertyValues("redis-kit.bloom.mode=native", "redis-kit.bloom.filters.f.expected-insertions=10",
				"redis-kit.bloom.filters.f.growth.enabled=true", "redis-kit.bloom.filters.g.expected-insertions=10",
				"redis-kit.bloom.filters.g.ttl=1d").run((context) -> {
			String description = StartupFailures.analyze(context).getDescription();
			assertThat(description).startsWith("redis-kit found 2 invalid properties:")
				.contains("Property: redis-kit.bloom.filters.f.growth.enabled\n    Value: \"true\"\n    Reason:"
						+ " redis-kit.bloom.filters.f.growth.enabled: growth is not supported in native mode")
				.contains("use mode auto or bitmap for filters that grow (redis-kit.bloom.mode is native)")
				.contains("Property: redis-kit.bloom.filters.g.ttl\n    Value: \"1d\"\n    Reason: redis-kit.bloom.filters.g.ttl:"
						+ " ttl is not supported by native (BF.*) filters");
		});
		this.runner.withPropertyValues("redis-kit.bloom.mode=auto", "redis-kit.bloom.filters.f.expected-insertions=10",
				"redis-kit.bloom.filters.f.growth.enabled=true").run((context) -> assertThat(context).hasNotFailed());
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			all.append(ex.getMessage()).append('\n');
		}
		return all.toString();
	}


	/** The shared command executor, recording each command as it is sent (detection sends {@code COMMAND INFO}). */
	@Configuration(proxyBeanMethods = false)
	static class RecordingCommands {

		final List<String> commands = new CopyOnWriteArrayList<>();

		@Bean
		CommandExecutor commandExecutor(RedisConnectionFactory connectionFactory) {
			CommandExecutor delegate = CommandExecutor.of(connectionFactory);
			return new CommandExecutor() {

				@Override
				public <T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args) {
					RecordingCommands.this.commands.add(command);
					return delegate.execute(command, returnType, key, args);
				}

				@Override
				public <T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key,
						byte[]... args) {
					RecordingCommands.this.commands.add(command);
					return delegate.executeAsync(command, returnType, key, args);
				}

				@Override
				public boolean isNative() {
					return delegate.isNative();
				}

			};
		}

	}

}

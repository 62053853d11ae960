package io.rediskit.autoconfigure.support;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.keys.KeysAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.support.Names;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Properties under {@code redis-kit} that bind to nothing, and values that are none of an enum's, are reported
 * in the words of YAML: the property, what its place allows, enum values as YAML takes them.
 */
@ExtendWith(OutputCaptureExtension.class)
class PropertiesBindFailureAnalyzerTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, RateLimitAutoConfiguration.class, KeysAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void aMisspeltPropertyIsNamedWithThePropertiesItsPlaceHas() {
		FailureAnalysis analysis = analyze("redis-kit.lock.watchdog-timout=10s");
		assertThat(analysis.getDescription())
			.startsWith("redis-kit.lock has a property that binds to nothing:\n")
			.contains("Property: redis-kit.lock.watchdog-timout\n    Value: \"10s\"\n")
			.contains("Reason: redis-kit.lock has no property 'watchdog-timout'; its properties are"
					+ " default-lease-time, default-wait-time, enabled, fair, latch, leader, max-poll-interval, read-write,"
					+ " redlock, replica-wait, semaphore, unguarded-when-disabled, watchdog-timeout, web\n")
			.doesNotContain("Bindable");
		assertThat(analysis.getAction()).startsWith("Correct or remove the properties that bind to nothing");
	}

	@Test
	void nestedGroupsMapEntriesAndListElementsAreWalked() {
		assertThat(analyze("redis-kit.lock.replica-wait.replica=1").getDescription())
			.contains("Reason: redis-kit.lock.replica-wait has no property 'replica'; its properties are on-shortfall,"
					+ " replicas, timeout\n");
		assertThat(analyze("redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1m",
				"redis-kit.rate-limit.limiters.login.burts=3")
			.getDescription())
			.contains("Reason: redis-kit.rate-limit.limiters.login has no property 'burts'; its properties are"
					+ " algorithm, burst, failure-policy, limit, period.");
		assertThat(analyze("redis-kit.rate-limit.web.rules[0].path=/a", "redis-kit.rate-limit.web.rules[0].key=ip",
				"redis-kit.rate-limit.web.rules[0].limiter=x", "redis-kit.rate-limit.web.rules[0].limitr=x")
			.getDescription())
			.contains("Reason: redis-kit.rate-limit.web.rules[0] has no property 'limitr'; its properties are key,"
					+ " limiter, methods, path, permits\n");
		assertThat(analyze("redis-kit.lock.enabled.really=true").getDescription())
			.contains("Reason: redis-kit.lock.enabled is a single value: it has no property 'really'");
	}

	@Test
	void aDottedLimiterNameIsReportedWithTheNameItShouldHave(CapturedOutput output) {
		// Plain YAML reads "api.v1:" as limiter "api" with a setting "v1".
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=dotted-limiter")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit.rate-limit has 3 properties that bind to nothing:")
			.contains("Property: redis-kit.rate-limit.limiters.api.v1.limit\n    Value: \"100\"\n    Origin: class path"
					+ " resource [dotted-limiter.yml] - 6:16\n    Reason: redis-kit.rate-limit.limiters.api has no"
					+ " property 'v1'; its properties are algorithm, burst, failure-policy, limit, period. If 'api.v1'"
					+ " was meant as one name: names are " + Names.RULE + ", with no '.'; write 'api-v1'")
			.contains("write 'api-v1'.")
			.doesNotContain("Bindable@")
			.doesNotContain("were left unbound");
	}

	@Test
	void enumValuesAreListedAsYamlTakesThem(CapturedOutput output) {
		FailureAnalysis analysis = analyze("redis-kit.rate-limit.limiters.login.algorithm=leaky-bucket",
				"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1m");
		assertThat(analysis.getDescription())
			.startsWith("redis-kit.rate-limit.limiters.login.algorithm has a value it does not take:\n")
			.contains("Value: \"leaky-bucket\"")
			.contains("Reason: 'leaky-bucket' is not one of ")
			.contains("fixed-window")
			.contains("sliding-log")
			.doesNotContain("FIXED_WINDOW");
		assertThat(analysis.getAction()).startsWith("Set redis-kit.rate-limit.limiters.login.algorithm to one of:\n")
			.contains("\n    token-bucket")
			.doesNotContain("TOKEN_BUCKET");
		assertThat(analyze("redis-kit.lock.replica-wait.on-shortfall=maybe").getDescription())
			.contains("Reason: 'maybe' is not one of fail, accept");
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"redis-kit.bloom.mode=fast")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Set redis-kit.bloom.mode to one of:\n\n    auto\n    native\n    bitmap")
			.doesNotContain("AUTO");
	}

	@Test
	void aListIsReportedByTheElementAtFault() {
		// Quoted as one value, 'daily, yearly' is a list of two: daily is right, yearly is not.
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withConfiguration(AutoConfigurations.of(RankAutoConfiguration.class))
			.withPropertyValues("redis-kit.leaderboard.leaderboards.players.periods=daily, yearly")
			.run((context) -> analysis[0] = StartupFailures.analyze(context));
		assertThat(analysis[0].getDescription())
			.contains("Property: redis-kit.leaderboard.leaderboards.players.periods\n    Value: \"daily, yearly\"\n")
			.contains("Reason: 'yearly' (of 'daily, yearly') is not one of daily, weekly, monthly\n");
	}

	@Test
	void rejectedValuesNameThePropertyAsYamlDoes(CapturedOutput output) {
		// Spring Boot's own report names the Java field (watchdogTimeout) after a "Binding to target" line.
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=invalid-watchdog")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit found 1 invalid property:\n\n    Property: redis-kit.lock.watchdog-timeout\n"
					+ "    Value: \"0s\"\n    Origin: class path resource [invalid-watchdog.yml] - ")
			.contains("Reason: redis-kit.lock.watchdog-timeout must be positive, was 0s")
			.doesNotContain("watchdogTimeout")
			.doesNotContain("Binding to target");
		assertThat(analyzeStartup("redis-kit.keys.report.batch-size=-1").getDescription())
			.contains("Property: redis-kit.keys.report.batch-size\n    Value: \"-1\"")
			.doesNotContain("batchSize");
		assertThat(analyzeStartup("redis-kit.lock.replica-wait.timeout=0ms").getDescription())
			.contains("Property: redis-kit.lock.replica-wait.timeout\n");
		assertThat(analyzeStartup("redis-kit.rate-limit.limiters[a.b].limit=1").getDescription())
			.contains("Property: redis-kit.rate-limit.limiters[a.b]\n")
			.contains("Reason: redis-kit.rate-limit.limiters[a.b] has an invalid limiter name 'a.b'");
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', value = {
			"outage|redis-kit.outage.probe-interval|1000000d|7:21",
			"growth|redis-kit.bloom.filters.orders.growth.tightening|1|20:23",
			"semaphore|redis-kit.lock.semaphore.watchdog-timeout|0s|29:25",
			"keys|redis-kit.keys.report.batch-size|-1|38:19" })
	void aValueOfAGroupInsideTheValidatedObjectIsReportedWithItsOrigin(String profile, String property, String value,
			String line, CapturedOutput output) {
		// Spring Boot's own lookup finds the origin of a property of the object validated only, not of its groups.
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.profiles(profile)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"spring.config.name=invalid-nested")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: " + property + "\n    Value: \"" + value + "\"\n    Origin: class path resource"
					+ " [invalid-nested.yml] - " + line + "\n    Reason: " + property);
	}

	@Test
	void aSettingWrittenWithoutAValueIsReportedAsSuch() {
		FailureAnalysis analysis = analyze("redis-kit.rate-limit.limiters.login.limit=5",
				"redis-kit.rate-limit.limiters.login.period=");
		assertThat(analysis.getDescription())
			.startsWith("redis-kit.rate-limit has a property written with no value:\n")
			.contains("Reason: redis-kit.rate-limit.limiters.login.period has no value: give it one or remove it")
			.doesNotContain("binds to nothing");
		assertThat(analysis.getAction()).startsWith("Give the properties with no value one, or remove them");
	}

	@Test
	void emptyValuesAndPropertiesThatBindToNothingHaveAHeadingEach() {
		FailureAnalysis analysis = analyze("redis-kit.lock.watchdog-timeout=", "redis-kit.lock.default-wait-time=",
				"redis-kit.lock.watchdog-timout=10s");
		assertThat(analysis.getDescription())
			.startsWith("redis-kit.lock has 2 properties written with no value:\n")
			.contains("Reason: redis-kit.lock.watchdog-timeout has no value: give it one or remove it")
			.contains("Reason: redis-kit.lock.default-wait-time has no value: give it one or remove it")
			.contains("\nredis-kit.lock has a property that binds to nothing:\n")
			.contains("Reason: redis-kit.lock has no property 'watchdog-timout'");
		// Each property under its own heading: the typo after the second heading, the empty values before it.
		String description = analysis.getDescription();
		int nothing = description.indexOf("binds to nothing");
		assertThat(description.indexOf("Property: redis-kit.lock.watchdog-timout\n")).isGreaterThan(nothing);
		assertThat(description.indexOf("Property: redis-kit.lock.default-wait-time\n")).isLessThan(nothing);
		assertThat(analysis.getAction()).startsWith("Give the properties with no value one, or remove them")
			.contains("Correct or remove the properties that bind to nothing");
	}

	@Test
	void failuresOutsideRedisKitAreLeftToSpringBoot() {
		this.runner.withPropertyValues("spring.data.redis.port=many").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new PropertiesBindFailureAnalyzer().analyze(context.getStartupFailure())).isNull();
		});
	}

	private FailureAnalysis analyze(String... properties) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = new PropertiesBindFailureAnalyzer().analyze(context.getStartupFailure());
		});
		assertThat(analysis[0]).as("analysis of %s", String.join(", ", properties)).isNotNull();
		return analysis[0];
	}

	// What the checks of the auto-configurations reject (the properties are plain data): any of our analyzers.
	private FailureAnalysis analyzeStartup(String... properties) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withPropertyValues(properties).run((context) -> analysis[0] = StartupFailures.analyze(context));
		return analysis[0];
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}

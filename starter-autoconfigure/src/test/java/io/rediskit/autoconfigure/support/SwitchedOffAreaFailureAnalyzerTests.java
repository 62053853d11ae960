package io.rediskit.autoconfigure.support;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.lock.LeaderElectionAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.RedlockAutoConfiguration;
import io.rediskit.autoconfigure.lock.SemaphoreAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bean that injects a type of an area switched off fails startup saying so, naming the switch and the bean, through
 * the analyzers Spring Boot loads from {@code META-INF/spring.factories} in their order, as an application's failed
 * start reports it.
 */
class SwitchedOffAreaFailureAnalyzerTests {

	private static final String LEADER_OFF = "redis-kit.lock.leader.enabled=false";

	private static final String LOCK_OFF = "redis-kit.lock.enabled=false";

	private static final String RATE_LIMIT_OFF = "redis-kit.rate-limit.enabled=false";

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, LeaderElectionAutoConfiguration.class, SemaphoreAutoConfiguration.class,
				RedlockAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void leaderElectionSwitchedOffIsNamedWithTheBeanThatInjectsIt() {
		this.runner.withPropertyValues(LEADER_OFF)
			.withBean("nightlyJobs", NightlyJobs.class)
			.run((context) -> {
				FailureAnalysis analysis = analyze(context, LEADER_OFF);
				assertThat(analysis.getDescription()).startsWith("LeaderElections is not available because"
						+ " redis-kit.lock.leader.enabled=false, and bean 'nightlyJobs' injects it (Parameter 0 of"
						+ " constructor in " + NightlyJobs.class.getName() + ")");
				assertThat(analysis.getAction()).isEqualTo("Remove redis-kit.lock.leader.enabled=false to turn the area"
						+ " on, or remove the injection point of bean 'nightlyJobs' (inject"
						+ " ObjectProvider<LeaderElections> where the bean can do without it).");
			});
	}

	@Test
	void aMemberOfAFamilySwitchedOffNamesTheFamilysSwitch() {
		this.runner.withPropertyValues(LOCK_OFF)
			.withBean("exports", Exports.class)
			.run((context) -> assertThat(analyze(context, LOCK_OFF).getDescription()).startsWith("SemaphoreRegistry is not"
					+ " available because redis-kit.lock.enabled=false, and bean 'exports' injects it"));
	}

	@Test
	void rateLimitingSwitchedOffIsNamed() {
		this.runner.withPropertyValues(RATE_LIMIT_OFF)
			.withBean("login", Login.class)
			.run((context) -> assertThat(analyze(context, RATE_LIMIT_OFF).getDescription()).startsWith("RateLimiterRegistry is not"
					+ " available because redis-kit.rate-limit.enabled=false, and bean 'login' injects it"));
	}

	@Test
	void aBeanMissingForAnotherReasonIsLeftToSpringBoot() {
		// Redlock is on with the lock, but absent without nodes: no switch to name.
		this.runner.withBean("reports", Reports.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new SwitchedOffAreaFailureAnalyzer(environment()).analyze(context.getStartupFailure())).isNull();
			assertThat(analyze(context).getDescription()).doesNotContain("is not available because");
		});
	}

	@Test
	void everyAreaSwitchOfTheAutoConfigurationsHasItsTypesInTheAnalyzer() {
		Set<String> switches = new TreeSet<>();
		for (String name : ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())) {
			if (name.startsWith("io.rediskit.")) {
				MergedAnnotations.from(ClassUtils.resolveClassName(name, getClass().getClassLoader()))
					.stream(ConditionalOnBooleanProperty.class)
					.flatMap((condition) -> Stream.concat(Stream.of(condition.getStringArray("name")),
							Stream.of(condition.getStringArray("value"))))
					.forEach(switches::add);
			}
		}
		// The console is off unless asked for, a web switch removes a handler that nothing injects, and Spring Cloud
		// Gateway's switch is not ours.
		switches.removeIf((property) -> !property.startsWith("redis-kit.") || property.startsWith("redis-kit.console.")
				|| property.endsWith(".web.enabled"));
		assertThat(switches).contains("redis-kit.lock.leader.enabled", "redis-kit.rate-limit.enabled");
		assertThat(SwitchedOffAreaFailureAnalyzer.switches()).containsAll(switches);
	}

	/**
	 * The first analysis of the analyzers an application's failed start asks, in their order, given the environment
	 * of the failed context (which a failed context no longer hands out).
	 */
	private static FailureAnalysis analyze(AssertableApplicationContext context, String... properties) {
		assertThat(context).hasFailed();
		SpringFactoriesLoader.ArgumentResolver arguments = SpringFactoriesLoader.ArgumentResolver
			.of(BeanFactory.class, new DefaultListableBeanFactory())
			.and(Environment.class, environment(properties));
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, arguments);
		AnnotationAwareOrderComparator.sort(analyzers);
		for (FailureAnalyzer analyzer : analyzers) {
			@Nullable FailureAnalysis analysis = analyzer.analyze(context.getStartupFailure());
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No analysis of " + context.getStartupFailure());
	}

	private static Environment environment(String... properties) {
		MockEnvironment environment = new MockEnvironment();
		for (String property : properties) {
			int equals = property.indexOf('=');
			environment.setProperty(property.substring(0, equals), property.substring(equals + 1));
		}
		return environment;
	}

	static class NightlyJobs {

		NightlyJobs(LeaderElections elections) {
		}

	}

	static class Exports {

		Exports(SemaphoreRegistry semaphores) {
		}

	}

	static class Login {

		Login(RateLimiterRegistry limiters) {
		}

	}

	static class Reports {

		Reports(RedlockRegistry redlock) {
		}

	}

}

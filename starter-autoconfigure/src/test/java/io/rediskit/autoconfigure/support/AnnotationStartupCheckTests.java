package io.rediskit.autoconfigure.support;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.queue.QueueListener;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @RateLimited} and {@code @DistributedLock} are checked when the context starts: what would fail every
 * call fails startup, naming the bean, class, method and attribute.
 */
@ExtendWith(OutputCaptureExtension.class)
class AnnotationStartupCheckTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.single.limit=1", "redis-kit.rate-limit.limiters.single.period=1h");

	@Test
	void validAnnotationsStart() {
		this.runner.withBean(Valid.class).withBean(Polite.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(AopUtils.isAopProxy(context.getBean(Valid.class))).isTrue();
		});
	}

	@Test
	void anUnknownLimiterFailsStartupNamingTheClassMethodAndPropertyToSet() {
		this.runner.withBean(UnknownLimiter.class)
			.run((context) -> assertFailure(context, UnknownLimiter.class,
					"@RateLimited(name = \"nowhere\") on UnknownLimiter.call(String): name \"nowhere\" is no limiter",
					"configure redis-kit.rate-limit.limiters.nowhere", "redis-kit.rate-limit.check-names=false"));
	}

	@Test
	void anUnknownLimiterOneTypoFromAConfiguredOneSuggestsIt() {
		this.runner.withBean(MistypedLimiter.class)
			.run((context) -> assertFailure(context, MistypedLimiter.class,
					"@RateLimited(name = \"singel\") on MistypedLimiter.call(String): name \"singel\" is no limiter"
							+ " (did you mean 'single'?): configure redis-kit.rate-limit.limiters.singel"));
	}

	@Test
	void springApplicationReportsInvalidAnnotationsAsAFailureAnalysisNotAStackTrace(CapturedOutput output) {
		SpringApplication application = new SpringApplication(BadApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatExceptionOfType(InvalidAnnotationException.class)
			.isThrownBy(() -> application.run("--spring.data.redis.port=" + redis.server().port()));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit found 1 invalid @RateLimited annotation:")
			.contains("UnknownLimiter.call(String): name \"nowhere\" is no limiter")
			.contains("Correct the attributes named above.");
	}

	@Test
	void everyBadAnnotationOfEveryKindAndBeanIsReportedInOneFailure() {
		// The lock's advisor used to fail alone, hiding the bad @RateLimited methods of the same bean.
		this.runner.withConfiguration(AutoConfigurations.of(QueueAutoConfiguration.class))
			.withBean("mistakes", Mistakes.class)
			.withBean("listener", BadListener.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidAnnotationFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				String mistakes = "bean 'mistakes' (" + Mistakes.class.getName() + "): ";
				assertThat(analysis.getDescription()).startsWith("redis-kit found 4 invalid annotations:\n")
					.contains("@DistributedLock (1):\n - " + mistakes + "key '#nosuch' of @DistributedLock(name ="
							+ " \"orders\") on Mistakes.badLockKey(String) names #nosuch")
					.contains("@QueueListener (1):\n - bean 'listener' (" + BadListener.class.getName()
							+ "): @QueueListener(queue = \"nowhere\") on BadListener.onMessage(String): queue"
							+ " \"nowhere\"")
					.contains("@RateLimited (2):\n - ")
					.contains(mistakes + "@RateLimited(name = \"nowhere\") on Mistakes.unknownLimiter(String): name"
							+ " \"nowhere\" is no limiter: configure redis-kit.rate-limit.limiters.nowhere")
					.contains(mistakes + "@RateLimited(name = \"api.v1\") on Mistakes.dottedLimiter(String): name"
							+ " \"api.v1\" can name no limiter: names are " + io.rediskit.support.Names.RULE
							+ "; rename it, such as \"api-v1\" (configured under redis-kit.rate-limit.limiters.api-v1)")
					.doesNotContain("limiters.api.v1");
				assertThat(analysis.getAction()).contains("Key expressions are SpEL")
					.contains("at most 36500 days")
					.contains("redis-kit.rate-limit.limiters.<name>")
					.contains("A @QueueListener method takes one parameter")
					.doesNotContain("limiters.api.v1");
				InvalidAnnotationException cause = (InvalidAnnotationException) analysis.getCause();
				assertThat(cause.getAnnotations()).containsExactly("DistributedLock", "QueueListener", "RateLimited");
				assertThat(cause.getFailures()).hasSize(4);
			});
	}

	@Test
	void aDottedLimiterNameFailsStartupEvenWithoutNameChecks() {
		this.runner.withBean(Mistakes.class)
			.withPropertyValues("redis-kit.rate-limit.check-names=false", "redis-kit.lock.enabled=false",
					"redis-kit.lock.unguarded-when-disabled=true")
			.run((context) -> {
				assertFailure(context, Mistakes.class, "name \"api.v1\" can name no limiter");
				assertThat(context.getStartupFailure().getMessage()).doesNotContain("nowhere");
			});
	}

	@Test
	void aLimiterCreatedInCodeWhileStartingIsKnown() {
		this.runner.withBean(UnknownLimiter.class)
			.withUserConfiguration(CreatesNowhere.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theNameCheckCanBeTurnedOffForLimitersCreatedLater() {
		this.runner.withBean(UnknownLimiter.class)
			.withPropertyValues("redis-kit.rate-limit.check-names=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThatIllegalArgumentException().isThrownBy(() -> context.getBean(UnknownLimiter.class).call("x"))
					.withMessageContaining("redis-kit.rate-limit.limiters.nowhere");
			});
	}

	@Test
	void keyExpressionsThatDoNotParseOrNameNoParameterFailStartup() {
		this.runner.withBean(BadKeys.class)
			.run((context) -> assertFailure(context, BadKeys.class,
					"key '#name +' of @RateLimited(name = \"single\") on BadKeys.unparsable(String) does not parse",
					"key '#nosuch' of @RateLimited(name = \"single\") on BadKeys.noSuchParameter(String) names #nosuch,"
							+ " which is not a parameter; parameters: #name; #p0 (or #a0) always work"));
		this.runner.withBean(BadLockKeys.class)
			.run((context) -> assertFailure(context, BadLockKeys.class,
					"key '#p1' of @DistributedLock(name = \"orders\") on BadLockKeys.beyondTheParameters(String)",
					"key 'T(java.lang.System).getProperty('user.home')' of @DistributedLock(name = \"evil\") on"
							+ " BadLockKeys.typeReference(String) uses a type reference"));
	}

	@Test
	void lockFallbacksThatDoNotMatchAndSkipsThatCannotApplyFailStartup() {
		this.runner.withBean(BadLockFallbacks.class)
			.run((context) -> assertFailure(context, BadLockFallbacks.class,
					"@DistributedLock(name = \"orders\") on BadLockFallbacks.missing(String) names fallbackMethod"
							+ " \"noSuchMethod\", but " + BadLockFallbacks.class.getName() + " has no matching method:"
							+ " expected String noSuchMethod(String) or"
							+ " String noSuchMethod(String, LockNotAcquiredException)",
					"found Integer BadLockFallbacks.wrongType(String), which does not match",
					"@DistributedLock(name = \"orders\") on BadLockFallbacks.both(String): give either fallbackMethod"
							+ " or onNotAcquired = SKIP, not both",
					"@DistributedLock(name = \"orders\") on BadLockFallbacks.count(String): onNotAcquired = SKIP needs a"
							+ " method returning void or an object (a skipped call returns null), not int",
					"@DistributedLock(name = \"orders\") on BadLockFallbacks.later(String): onNotAcquired = SKIP is not"
							+ " supported on a method returning CompletableFuture"));
	}

	@Test
	void badDurationsFailStartup() {
		this.runner.withBean(BadDurations.class)
			.withPropertyValues("sample.wait=2s")
			.run((context) -> assertFailure(context, BadDurations.class,
					"waitTime 'soon' of @DistributedLock(name = \"orders\") on BadDurations.badWait(String) is not a"
							+ " duration",
					"leaseTime of @DistributedLock(name = \"orders\") on BadDurations.zeroLease(String) must be"
							+ " positive",
					"waitTime '-1s' of @DistributedLock(name = \"orders\") on BadDurations.negativeWait(String) must not"
							+ " be negative",
					"leaseTime '1000000d' of @DistributedLock(name = \"orders\") on BadDurations.endlessLease(String)"
							+ " must be at most 36500 days",
					"waitTime '${no.such.property}' of @DistributedLock(name = \"orders\") on"
							+ " BadDurations.unresolved(String)"));
	}

	@Test
	void missingOrMismatchedFallbacksAndImpossiblePermitsFailStartup() {
		this.runner.withBean(BadFallbacks.class)
			.run((context) -> assertFailure(context, BadFallbacks.class,
					"@RateLimited(name = \"single\") on BadFallbacks.withMissingFallback(String) names fallbackMethod"
							+ " \"noSuchMethod\", but " + BadFallbacks.class.getName() + " has no matching method:"
							+ " expected String noSuchMethod(String) or"
							+ " String noSuchMethod(String, RateLimitExceededException)",
					"fallbackMethod \"wrongFallback\"",
					"found Integer BadFallbacks.wrongFallback(String), which does not match",
					"BadFallbacks.twoPermits(String): permits 2 can never be granted: the limiter's capacity is 1",
					"BadFallbacks.noPermits(String): permits must be at least 1, was 0"));
	}

	@Test
	void annotationsOnInterfacesAreCheckedBehindJdkProxies() {
		this.runner.withBean(BadInterface.class, BadImplementation::new)
			.withPropertyValues("spring.aop.proxy-target-class=false")
			.run((context) -> assertFailure(context, BadImplementation.class,
					"key '#nosuch' of @DistributedLock(name = \"greet\") on BadImplementation.greet(String)"));
	}

	@Test
	void withoutParameterNamesTheFailureSaysHowToCompileAndThatPositionsWork(@TempDir Path sources)
			throws Exception {
		Class<?> type = compileWithoutParameterNames(sources);
		Object bean = type.getDeclaredConstructor().newInstance();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
					RateLimitAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
					"redis-kit.rate-limit.limiters.single.limit=1", "redis-kit.rate-limit.limiters.single.period=1h")
			.withBean("unnamed", Object.class, () -> bean)
			.run((context) -> {
				assertThat(context).hasFailed();
				String message = context.getStartupFailure().getMessage();
				assertThat(message).contains("bean 'unnamed' (" + type.getName() + ")")
					.contains("key '#username' of @RateLimited(name = \"single\") on Unnamed.byName(String) names"
							+ " #username, but the parameter names of Unnamed.byName(String) are not available:"
							+ " compile with -parameters")
					.contains("or refer to parameters by position: #p0 (or #a0) always work")
					.doesNotContain("byPosition");
			});
	}

	@Test
	void aKeyExpressionThatThrowsAtRunTimeIsAnIllegalArgumentNamingTheMethod() {
		this.runner.withBean(Valid.class).run((context) -> {
			Valid valid = context.getBean(Valid.class);
			assertThatIllegalArgumentException().isThrownBy(() -> valid.shortKey("ada"))
				.withMessageContaining("key '#name.substring(100)' of @RateLimited(name = \"single\") on"
						+ " Valid.shortKey(String) threw java.lang.StringIndexOutOfBoundsException")
				.withCauseInstanceOf(StringIndexOutOfBoundsException.class);
		});
	}

	private static void assertFailure(AssertableApplicationContext context, Class<?> beanClass, String... parts) {
		assertThat(context).hasFailed();
		String message = context.getStartupFailure().getMessage();
		assertThat(message).contains("(" + beanClass.getName() + "): ");
		for (String part : parts) {
			assertThat(message).contains(part);
		}
	}

	// javac as a build without the Spring Boot parent runs it: no -parameters.
	private static Class<?> compileWithoutParameterNames(Path sources) throws IOException, ClassNotFoundException {
		Path source = sources.resolve("Unnamed.java");
		Files.writeString(source, """
				public class Unnamed {

					@io.rediskit.ratelimit.RateLimited(name = "single", key = "#username")
					public String byName(String username) {
						return username;
					}

					@io.rediskit.ratelimit.RateLimited(name = "single", key = "#p0 + #a0")
					public String byPosition(String username) {
						return username;
					}

				}
				""");
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		int status = javac.run(null, null, null, "-classpath", System.getProperty("java.class.path"), "-d",
				sources.toString(), source.toString());
		assertThat(status).isZero();
		URLClassLoader loader = new URLClassLoader(new URL[] { sources.toUri().toURL() },
				AnnotationStartupCheckTests.class.getClassLoader());
		return loader.loadClass("Unnamed");
	}

	static class Valid {

		@RateLimited(name = "single", key = "#name + ':' + #p0.length() + #a0", permits = 1)
		@DistributedLock(name = "orders", key = "#name", waitTime = "${sample.missing:1s}", leaseTime = "PT10S")
		public String call(String name) {
			return name;
		}

		@RateLimited(name = "single", key = "#name.substring(100)")
		public String shortKey(String name) {
			return name;
		}

		@RateLimited(name = "single", fallbackMethod = "fallback")
		public String withFallback(String name) {
			return name;
		}

		String fallback(String name, RateLimitExceededException ex) {
			return "later";
		}

	}

	static class Mistakes {

		@DistributedLock(name = "orders", key = "#nosuch")
		public String badLockKey(String name) {
			return name;
		}

		@RateLimited(name = "nowhere")
		public String unknownLimiter(String name) {
			return name;
		}

		@RateLimited(name = "api.v1")
		public String dottedLimiter(String name) {
			return name;
		}

	}

	static class BadListener {

		@QueueListener(queue = "nowhere")
		public void onMessage(String payload) {
		}

	}

	interface Greeter {

		@DistributedLock(name = "greet", key = "#name")
		String greet(String name);

	}

	static class Polite implements Greeter {

		@Override
		public String greet(String name) {
			return "hello " + name;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(UnknownLimiter.class)
	static class BadApplication {

	}

	static class MistypedLimiter {

		@RateLimited(name = "singel")
		public String call(String name) {
			return name;
		}

	}

	static class UnknownLimiter {

		@RateLimited(name = "nowhere")
		public String call(String name) {
			return name;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CreatesNowhere {

		@Bean
		Object nowhereLimiter(RateLimiterRegistry registry) {
			return registry.create("nowhere",
					RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1, java.time.Duration.ofMinutes(1)));
		}

	}

	static class BadKeys {

		@RateLimited(name = "single", key = "#name +")
		public String unparsable(String name) {
			return name;
		}

		@RateLimited(name = "single", key = "#nosuch")
		public String noSuchParameter(String name) {
			return name;
		}

	}

	static class BadLockKeys {

		@DistributedLock(name = "orders", key = "#p1")
		public String beyondTheParameters(String name) {
			return name;
		}

		@DistributedLock(name = "evil", key = "T(java.lang.System).getProperty('user.home')")
		public String typeReference(String name) {
			return name;
		}

	}

	static class BadLockFallbacks {

		@DistributedLock(name = "orders", fallbackMethod = "noSuchMethod")
		public String missing(String name) {
			return name;
		}

		@DistributedLock(name = "orders", fallbackMethod = "wrongType")
		public String mismatched(String name) {
			return name;
		}

		Integer wrongType(String name) {
			return 1;
		}

		@DistributedLock(name = "orders", fallbackMethod = "fallback", onNotAcquired = DistributedLock.OnNotAcquired.SKIP)
		public String both(String name) {
			return name;
		}

		String fallback(String name) {
			return name;
		}

		@DistributedLock(name = "orders", onNotAcquired = DistributedLock.OnNotAcquired.SKIP)
		public int count(String name) {
			return 1;
		}

		@DistributedLock(name = "orders", onNotAcquired = DistributedLock.OnNotAcquired.SKIP)
		public java.util.concurrent.CompletableFuture<String> later(String name) {
			return java.util.concurrent.CompletableFuture.completedFuture(name);
		}

	}

	static class BadDurations {

		@DistributedLock(name = "orders", key = "#name", waitTime = "soon")
		public String badWait(String name) {
			return name;
		}

		@DistributedLock(name = "orders", leaseTime = "0s")
		public String zeroLease(String name) {
			return name;
		}

		@DistributedLock(name = "orders", waitTime = "-1s")
		public String negativeWait(String name) {
			return name;
		}

		@DistributedLock(name = "orders", leaseTime = "1000000d")
		public String endlessLease(String name) {
			return name;
		}

		@DistributedLock(name = "orders", waitTime = "${no.such.property}")
		public String unresolved(String name) {
			return name;
		}

		@DistributedLock(name = "orders", waitTime = "${sample.wait}")
		public String resolved(String name) {
			return name;
		}

	}

	static class BadFallbacks {

		@RateLimited(name = "single", fallbackMethod = "noSuchMethod")
		public String withMissingFallback(String name) {
			return name;
		}

		@RateLimited(name = "single", fallbackMethod = "wrongFallback")
		public String withWrongFallback(String name) {
			return name;
		}

		Integer wrongFallback(String name) {
			return 0;
		}

		@RateLimited(name = "single", permits = 2)
		public String twoPermits(String name) {
			return name;
		}

		@RateLimited(name = "single", permits = 0)
		public String noPermits(String name) {
			return name;
		}

	}

	interface BadInterface {

		@DistributedLock(name = "greet", key = "#nosuch")
		String greet(String name);

	}

	static class BadImplementation implements BadInterface {

		@Override
		public String greet(String name) {
			return name;
		}

	}

}

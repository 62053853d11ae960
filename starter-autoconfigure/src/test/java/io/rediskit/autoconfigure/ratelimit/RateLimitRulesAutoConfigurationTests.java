package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiterRegistry;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.PathContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Wiring and startup validation of {@code redis-kit.rate-limit.web.rules}. */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitRulesAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedisKitAutoConfiguration.class, RateLimitAutoConfiguration.class, RateLimitRulesAutoConfiguration.class);

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.api.limit=5", "redis-kit.rate-limit.limiters.api.period=1m");

	@Test
	void aServletApplicationGetsTheFilterAtTheConfiguredOrder() {
		this.servlet
			.withPropertyValues("redis-kit.rate-limit.web.rules[0].path=/api/**",
					"redis-kit.rate-limit.web.rules[0].limiter=api", "redis-kit.rate-limit.web.rules[0].key=ip",
					"redis-kit.rate-limit.web.order=42")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RateLimitRules.class);
				FilterRegistrationBean<?> registration = context.getBean("redisKitRateLimitRuleFilter",
						FilterRegistrationBean.class);
				assertThat(registration.getFilter()).isInstanceOf(RateLimitRuleFilter.class);
				assertThat(registration.getOrder()).isEqualTo(42);
				assertThat(context).doesNotHaveBean(ReactiveRateLimitRuleFilter.class);
				RateLimitProperties.Web web = context.getBean(RateLimitProperties.class).getWeb();
				assertThat(web.getHeaders().isOnSuccess()).isTrue();
			});
	}

	@Test
	void theDefaultOrderIsAfterSpringSecurityAndBeforeTheDispatcher() {
		this.servlet.run((context) -> assertThat(
				context.getBean("redisKitRateLimitRuleFilter", FilterRegistrationBean.class).getOrder())
			.isEqualTo(-90));
	}

	@Test
	void aReactiveApplicationGetsTheWebFilter() {
		new ReactiveWebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> {
				assertThat(context).hasSingleBean(ReactiveRateLimitRuleFilter.class)
					.doesNotHaveBean(FilterRegistrationBean.class);
				assertThat(context.getBean(ReactiveRateLimitRuleFilter.class).getOrder()).isEqualTo(-90);
			});
	}

	@Test
	void noFilterOutsideWebApplicationsOrWhenRateLimitingIsOff() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitRules.class));
		this.servlet.withPropertyValues("redis-kit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitRules.class));
	}

	@Test
	void theFirstMatchingRuleApplies() {
		this.servlet
			.withPropertyValues("redis-kit.rate-limit.web.rules[0].path=/api/login",
					"redis-kit.rate-limit.web.rules[0].methods=post", "redis-kit.rate-limit.web.rules[0].limiter=api",
					"redis-kit.rate-limit.web.rules[0].key=ip", "redis-kit.rate-limit.web.rules[1].path=/api/**,/v2/*",
					"redis-kit.rate-limit.web.rules[1].limiter=api", "redis-kit.rate-limit.web.rules[1].key=principal")
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				assertThat(rules.match("POST", PathContainer.parsePath("/api/login")).property())
					.isEqualTo("redis-kit.rate-limit.web.rules[0]");
				assertThat(rules.match("GET", PathContainer.parsePath("/api/login")).property())
					.isEqualTo("redis-kit.rate-limit.web.rules[1]");
				assertThat(rules.match("GET", PathContainer.parsePath("/v2/x")).key())
					.isInstanceOf(RequestKey.Principal.class);
				assertThat(rules.match("GET", PathContainer.parsePath("/v2/x/y"))).isNull();
				assertThat(rules.match("GET", PathContainer.parsePath("/other"))).isNull();
			});
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			rules[1].limiter=nope      | redis-kit.rate-limit.web.rules[1].limiter names "nope", which is no limiter
			rules[1].limiter=apj       | redis-kit.rate-limit.web.rules[1].limiter names "apj", which is no limiter (did you mean 'api'?): configure redis-kit.rate-limit.limiters.apj
			rules[1].limiter=bad.name  | redis-kit.rate-limit.web.rules[1].limiter 'bad.name' is no limiter name
			rules[1].limiter=          | redis-kit.rate-limit.web.rules[1].limiter is required
			rules[1].path=/a/{x        | redis-kit.rate-limit.web.rules[1].path '/a/{x' is no path pattern
			rules[1].path=/a/**/b      | redis-kit.rate-limit.web.rules[1].path '/a/**/b' is no path pattern
			rules[1].path=             | redis-kit.rate-limit.web.rules[1].path is required
			rules[1].methods=GET,FETCH | redis-kit.rate-limit.web.rules[1].methods has 'FETCH', which is not one of
			rules[1].key=              | redis-kit.rate-limit.web.rules[1].key is required
			rules[1].key=pricipal      | redis-kit.rate-limit.web.rules[1].key 'pricipal' is no key source: use ip, header:<Name>, principal, session
			rules[1].key=cookie:id     | redis-kit.rate-limit.web.rules[1].key 'cookie:id' is no key source
			rules[1].key=header:       | redis-kit.rate-limit.web.rules[1].key 'header:' names no valid header
			rules[1].key=header:X Y    | redis-kit.rate-limit.web.rules[1].key 'header:X Y' names no valid header
			rules[1].key=#request.header( | redis-kit.rate-limit.web.rules[1].key '#request.header(' does not parse
			rules[1].key=#request.header(T(java.lang.Runtime).getRuntime()) | redis-kit.rate-limit.web.rules[1].key '#request.header(T(java.lang.Runtime).getRuntime())' uses a type reference
			rules[1].key=#req.header('A') | redis-kit.rate-limit.web.rules[1].key '#req.header('A')' names #req: the only variable is #request
			rules[1].key=#request.header(new String('A')) | uses a constructor
			rules[1].permits=0         | redis-kit.rate-limit.web.rules[1].permits must be at least 1, was 0
			rules[1].permits=6         | redis-kit.rate-limit.web.rules[1].permits 6 can never be granted: the capacity of limiter "api" is 5
			rules[1].limit=3           | redis-kit.rate-limit.web.rules[1]
			""")
	void invalidRulesFailStartupNamingTheProperty(String property, String message) {
		this.servlet.withPropertyValues(validRule(0)).withPropertyValues(validRule(1))
			.withPropertyValues("redis-kit.rate-limit.web." + property)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(messages(context.getStartupFailure())).contains(message);
			});
	}

	@Test
	void rulesThatNeedOtherBeansAreReportedAsAFailureAnalysisNamingEachPropertyAndItsOrigin(CapturedOutput output) {
		// Checked once the limiters exist: these used to stop startup with a bare IllegalStateException, first rule only.
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(RulesApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"server.port=0", "spring.config.name=invalid-rules")
			.run()
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("redis-kit found 2 invalid properties:")
			.contains("Property: redis-kit.rate-limit.web.rules[0].limiter\n    Value: \"nope\"\n    Origin: class path"
					+ " resource [invalid-rules.yml] - 10:20\n    Reason: redis-kit.rate-limit.web.rules[0].limiter names"
					+ " \"nope\", which is no limiter: configure redis-kit.rate-limit.limiters.nope")
			.contains("Property: redis-kit.rate-limit.web.rules[1].permits\n    Value: \"6\"\n    Origin: class path"
					+ " resource [invalid-rules.yml] - 15:20\n    Reason: redis-kit.rate-limit.web.rules[1].permits 6 can"
					+ " never be granted: the capacity of limiter \"api\" is 5; ask for 1 to 5")
			.contains("Update your application's configuration")
			.doesNotContain("IllegalStateException");
	}

	@Test
	void aRuleListGivenOnTheCommandLineReplacesTheFilesAndTheReportSaysSoRatherThanShowTheFilesValue(
			CapturedOutput output) {
		// Spring Boot binds a list from one source: one element's property on the command line drops the file's rules.
		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(RulesApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties("spring.data.redis.port=" + redis.server().port(), "spring.main.banner-mode=off",
					"server.port=0", "spring.config.name=invalid-rules")
			.run("--redis-kit.rate-limit.web.rules[0].limiter=api")
			.close());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Property: redis-kit.rate-limit.web.rules[0].path\n    Reason: redis-kit.rate-limit.web.rules[0].path"
					+ " is required, such as /api/**\n    Not bound: it is set in class path resource [invalid-rules.yml] -"
					+ " 9:17, but the list redis-kit.rate-limit.web.rules was bound from property source"
					+ " \"commandLineArgs\" alone: a list set in a property source that wins replaces the whole list of"
					+ " the others, so give every property of its elements there")
			.contains("Property: redis-kit.rate-limit.web.rules[0].key\n    Reason:")
			.doesNotContain("Value: \"/api/**\"");
	}

	@Test
	void aRuleMayNameALimiterCreatedInCodeWhileTheApplicationStarts() {
		this.servlet.withUserConfiguration(LimiterInCode.class)
			.withPropertyValues("redis-kit.rate-limit.web.rules[0].path=/x", "redis-kit.rate-limit.web.rules[0].key=ip",
					"redis-kit.rate-limit.web.rules[0].limiter=in-code")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anUnknownLimiterPassesWhenNameChecksAreOff() {
		this.servlet.withPropertyValues("redis-kit.rate-limit.check-names=false", "redis-kit.rate-limit.web.rules[0].path=/x",
				"redis-kit.rate-limit.web.rules[0].key=ip", "redis-kit.rate-limit.web.rules[0].limiter=later")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void everyKeySourceParses() {
		assertThat(RequestKey.parse("ip")).isInstanceOf(RequestKey.Ip.class);
		assertThat(RequestKey.parse(" principal ")).isInstanceOf(RequestKey.Principal.class);
		assertThat(RequestKey.parse("session")).isInstanceOf(RequestKey.Session.class);
		assertThat(RequestKey.parse("header:X-Api-Key")).isEqualTo(new RequestKey.Header("X-Api-Key"));
		assertThat(RequestKey.parse("#request.header('X-Tenant') ?: #request.ip"))
			.isInstanceOf(RequestKey.Spel.class);
	}

	@Test
	void aKeyExpressionTreatsTheRequestAsDataAndYieldsTheSharedKeyWhenItHasNoValue() {
		RequestKey.Spel spel = (RequestKey.Spel) RequestKey.parse("#request.header('X-Tenant').substring(0, 3)");
		RuleRequest hostile = new RuleRequest("GET", "/a", "10.0.0.1",
				(name) -> "#{T(java.lang.Runtime).getRuntime().exit(1)}", (name) -> null);
		assertThat(spel.evaluate(hostile)).isEqualTo("#{T");
		RuleRequest shortValue = new RuleRequest("GET", "/a", "10.0.0.1", (name) -> "ab", (name) -> null);
		assertThat(spel.evaluate(shortValue)).isEqualTo(RequestKey.MISSING);
		RuleRequest none = new RuleRequest("GET", "/a", "10.0.0.1", (name) -> null, (name) -> null);
		assertThat(spel.evaluate(none)).isEqualTo(RequestKey.MISSING);
		RequestKey.Spel all = (RequestKey.Spel) RequestKey.parse(
				"#request.method + ' ' + #request.path + ' ' + #request.ip + ' ' + #request.param('p')");
		assertThat(all.evaluate(new RuleRequest("POST", "/b", "::1", (name) -> null, (name) -> "v")))
			.isEqualTo("POST /b ::1 v");
	}

	private static String[] validRule(int index) {
		String prefix = "redis-kit.rate-limit.web.rules[" + index + "].";
		return new String[] { prefix + "path=/r" + index + "/**", prefix + "limiter=api", prefix + "key=ip" };
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			all.append(ex.getMessage()).append('\n');
		}
		return all.toString();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RulesApplication {

	}

	@Configuration(proxyBeanMethods = false)
	static class LimiterInCode {

		@Bean
		Object limiterInCode(RateLimiterRegistry registry) {
			return registry.create("in-code", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 10, Duration.ofMinutes(1)));
		}

	}

}

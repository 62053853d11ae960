package io.rediskit.autoconfigure.ratelimit;

import java.util.Map;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.testsupport.RedisServerExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.DefaultConversionService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Wiring of the gateway's rate limiter: alone, beside another, and not at all. */
@Tag("gateway")
class RateLimitGatewayAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RateLimitGatewayAutoConfiguration.class))
		.withUserConfiguration(GatewayConfigurationService.class)
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void aloneItIsTheGatewaysRateLimiter() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(GatewayRateLimiter.class);
			assertThat(context.getBean(RateLimiter.class))
				.isSameAs(context.getBean(RateLimitGatewayAutoConfiguration.BEAN_NAME));
		});
	}

	@Test
	void besideAnotherRateLimiterItLeavesThatOneTheDefaultAndIsFoundByName() {
		this.runner.withUserConfiguration(OtherRateLimiter.class).run((context) -> {
			assertThat(context.getBean(RateLimitGatewayAutoConfiguration.BEAN_NAME))
				.isInstanceOf(GatewayRateLimiter.class);
			assertThat(((AbstractBeanDefinition) context.getBeanFactory()
				.getBeanDefinition(RateLimitGatewayAutoConfiguration.BEAN_NAME)).isDefaultCandidate()).isFalse();
			assertThat(context.getBean(RateLimiter.class)).isInstanceOf(AllowAll.class);
		});
	}

	@Test
	void backsOffFromTheApplicationsOwn() {
		this.runner.withUserConfiguration(OwnGatewayRateLimiter.class).run((context) -> {
			assertThat(context).hasSingleBean(GatewayRateLimiter.class);
			assertThat(context).hasBean("ownLimiter").doesNotHaveBean(RateLimitGatewayAutoConfiguration.BEAN_NAME);
		});
	}

	@Test
	void absentWithoutTheGateway() {
		this.runner.withClassLoader(new FilteredClassLoader(AbstractRateLimiter.class))
			.run((context) -> assertThat(context).doesNotHaveBean(GatewayRateLimiter.class));
	}

	@Test
	void absentWhenRateLimitingOrTheGatewayIsOff() {
		this.runner.withPropertyValues("redis-kit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(GatewayRateLimiter.class));
		this.runner.withPropertyValues("spring.cloud.gateway.server.webflux.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(GatewayRateLimiter.class));
	}

	@Test
	void aRouteNamingALimiterThatDoesNotExistFailsToLoadWithTheClosestConfiguredName() {
		this.runner.withPropertyValues("redis-kit.rate-limit.limiters.api.limit=10",
				"redis-kit.rate-limit.limiters.api.period=1m").run((context) -> {
					assertThatIllegalArgumentException().isThrownBy(() -> loadRoute(context, "orders", "apl"))
						.withMessage("Route 'orders': redis-kit-rate-limiter.limiter names \"apl\", which is no"
								+ " limiter (did you mean 'api'?): configure redis-kit.rate-limit.limiters.apl or create"
								+ " it in code while the application starts (for limiters created later, turn this check"
								+ " off with redis-kit.rate-limit.check-names=false)");
					assertThatIllegalArgumentException().isThrownBy(() -> loadRoute(context, "orders", "nowhere"))
						.withMessageStartingWith("Route 'orders': redis-kit-rate-limiter.limiter names \"nowhere\","
								+ " which is no limiter: configure redis-kit.rate-limit.limiters.nowhere ");
					assertThat(loadRoute(context, "api", "api")).isEqualTo("api");
				});
	}

	@Test
	void withoutTheNameCheckARouteMayNameALimiterCreatedLater() {
		this.runner.withPropertyValues("redis-kit.rate-limit.check-names=false")
			.run((context) -> assertThat(loadRoute(context, "later", "created-later")).isEqualTo("created-later"));
	}

	/**
	 * Loads a route's filter arguments as the gateway does when routes load.
	 * @return the limiter bound for the route
	 */
	// No gateway type in a signature of this class (its lambdas' included): the JVM without Spring Cloud scans it.
	private static @Nullable String loadRoute(ApplicationContext context, String routeId, String limiter) {
		GatewayRateLimiter rateLimiter = context.getBean(GatewayRateLimiter.class);
		rateLimiter.onApplicationEvent(new FilterArgsEvent(routeId, routeId,
				Map.of(GatewayRateLimiter.CONFIGURATION_PROPERTY_NAME + ".limiter", limiter)));
		return rateLimiter.getConfig().get(routeId).getLimiter();
	}

	@Configuration(proxyBeanMethods = false)
	static class GatewayConfigurationService {

		@Bean
		ConfigurationService gatewayConfigurationService(BeanFactory beanFactory) {
			return new ConfigurationService(beanFactory, DefaultConversionService::new, () -> null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OtherRateLimiter {

		@Bean
		AllowAll allowAll() {
			return new AllowAll();
		}

	}

	static class AllowAll extends AbstractRateLimiter<Object> {

		AllowAll() {
			super(Object.class, "allow-all", null);
		}

		@Override
		public Mono<Response> isAllowed(String routeId, String id) {
			return Mono.just(new Response(true, Map.of()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnGatewayRateLimiter {

		@Bean
		GatewayRateLimiter ownLimiter(io.rediskit.ratelimit.RateLimiterRegistry registry,
				ConfigurationService configurationService) {
			return new GatewayRateLimiter(registry, configurationService);
		}

	}

}

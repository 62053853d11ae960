package io.rediskit.autoconfigure.ratelimit;

import java.util.Map;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.testsupport.RedisServerExtension;
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
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.DefaultConversionService;

import static org.assertj.core.api.Assertions.assertThat;

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

package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.reactive.BlockHoundGate;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @RateLimited} on methods returning {@code Mono}, {@code Flux} and {@code CompletionStage}, against a
 * real redis-server: the limiter is asked on subscription, once per subscription, and never before.
 */
class ReactiveRateLimitedTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, RateLimitAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.api.limit=2", "redis-kit.rate-limit.limiters.api.period=1h",
				"redis-kit.rate-limit.limiters.closed.limit=2", "redis-kit.rate-limit.limiters.closed.period=1h",
				"redis-kit.rate-limit.limiters.closed.failure-policy=fail-closed")
		.withUserConfiguration(Beans.class);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void nothingHappensBeforeSubscriptionAndEachSubscriptionAsksAgain() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			Mono<String> mono = service.mono("ada");
			assertThat(service.calls()).isZero();
			assertThat(redis.server().dbSize()).isZero();
			assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("mono ada");
			assertThat(redis.server().dbSize()).isEqualTo(1);
			assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("mono ada");
			assertThat(service.calls()).isEqualTo(2);
			assertThatThrownBy(() -> mono.block(Duration.ofSeconds(10))).isInstanceOf(RateLimitExceededException.class)
				.satisfies((ex) -> assertThat(((RateLimitExceededException) ex).getLimiterName()).isEqualTo("api"));
			assertThat(service.calls()).isEqualTo(2);
		});
	}

	@Test
	void aFluxIsLimitedPerSubscriptionAndRejectedAsAnErrorSignal() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			Flux<String> flux = service.flux("ada");
			assertThat(flux.collectList().block(Duration.ofSeconds(10))).containsExactly("a", "b");
			assertThat(flux.collectList().block(Duration.ofSeconds(10))).containsExactly("a", "b");
			assertThat(flux.materialize().collectList().block(Duration.ofSeconds(10))).singleElement()
				.satisfies((signal) -> assertThat(signal.getThrowable()).isInstanceOf(RateLimitExceededException.class));
		});
	}

	@Test
	void aCompletionStageIsDecidedWhenCalledAndRejectedExceptionally() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.stage("ada").toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("stage ada");
			assertThat(service.stage("ada").toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo("stage ada");
			CompletableFuture<String> rejected = service.stage("ada").toCompletableFuture();
			assertThatThrownBy(() -> rejected.get(10, TimeUnit.SECONDS))
				.hasCauseInstanceOf(RateLimitExceededException.class);
			assertThat(service.calls()).isEqualTo(2);
		});
	}

	@Test
	void aReactiveFallbackAnswersARejection() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThat(service.withFallback("ada").block(Duration.ofSeconds(10))).isEqualTo("limited ada");
			assertThat(service.withFallback("ada").block(Duration.ofSeconds(10))).isEqualTo("limited ada");
			assertThat(service.withFallback("ada").block(Duration.ofSeconds(10))).isEqualTo("fallback ada after api");
		});
	}

	@Test
	void anErrorOfTheMethodIsPassedOn() {
		this.runner.run((context) -> {
			Service service = context.getBean(Service.class);
			assertThatThrownBy(() -> service.failing().block(Duration.ofSeconds(10)))
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("boom");
		});
	}

	@Test
	void aPausedServerGetsTheFailurePolicyWithinTheCommandTimeoutWithoutBlocking() {
		try (RedisServerProcess paused = RedisServerProcess.start()) {
			this.runner
				.withPropertyValues("spring.data.redis.port=" + paused.port(), "spring.data.redis.timeout=500ms")
				.run((context) -> {
					Service service = context.getBean(Service.class);
					// Open the shared connection while the server answers.
					assertThat(service.mono("warm-up").block(Duration.ofSeconds(10))).isEqualTo("mono warm-up");
					paused.pause();
					try (BlockHoundGate gate = BlockHoundGate.open()) {
						long started = System.nanoTime();
						// Subscribed on Reactor's non-blocking parallel threads, where BlockHound fails any block.
						assertThat(Mono.defer(() -> service.mono("ada"))
							.subscribeOn(Schedulers.parallel())
							.block(Duration.ofSeconds(10))).isEqualTo("mono ada");
						assertThatThrownBy(() -> Mono.defer(() -> service.closed("ada"))
							.subscribeOn(Schedulers.parallel())
							.block(Duration.ofSeconds(10))).isInstanceOf(RateLimitExceededException.class)
							.satisfies((ex) -> assertThat(((RateLimitExceededException) ex).getDecision()
								.fromFailurePolicy()).isTrue());
						// Two command timeouts of 500 ms, with generous room for a loaded machine.
						assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
						assertThat(BlockHoundGate.violations()).isEmpty();
					}
					finally {
						paused.resume();
					}
				});
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Service service() {
			return new Service();
		}

	}

	static class Service {

		private final AtomicInteger calls = new AtomicInteger();

		// Read through a method: the proxy's own fields are not the target's.
		int calls() {
			return this.calls.get();
		}

		@RateLimited(name = "api", key = "#name")
		Mono<String> mono(String name) {
			this.calls.incrementAndGet();
			return Mono.just("mono " + name);
		}

		@RateLimited(name = "api", key = "'flux:' + #name")
		Flux<String> flux(String name) {
			return Flux.just("a", "b");
		}

		@RateLimited(name = "api", key = "'stage:' + #name")
		CompletionStage<String> stage(String name) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture("stage " + name);
		}

		@RateLimited(name = "api", key = "'fallback:' + #name", fallbackMethod = "limited")
		Mono<String> withFallback(String name) {
			return Mono.just("limited " + name);
		}

		Mono<String> limited(String name, RateLimitExceededException ex) {
			return Mono.just("fallback " + name + " after " + ex.getLimiterName());
		}

		@RateLimited(name = "api", key = "'failing'")
		Mono<String> failing() {
			return Mono.error(new IllegalStateException("boom"));
		}

		@RateLimited(name = "closed", key = "#name")
		Mono<String> closed(String name) {
			return Mono.just("closed " + name);
		}

	}

}

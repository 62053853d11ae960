package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@code @RateLimited} on real beans against a real redis-server. Limits of a few calls per hour make every
 * admission deterministic: nothing is refilled while a test runs.
 */
class RateLimitedAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitMetricsAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.greeting.limit=3", "redis-kit.rate-limit.limiters.greeting.period=1h",
				"redis-kit.rate-limit.limiters.shared.algorithm=sliding-log",
				"redis-kit.rate-limit.limiters.shared.limit=2", "redis-kit.rate-limit.limiters.shared.period=1h",
				"redis-kit.rate-limit.limiters.single.limit=1", "redis-kit.rate-limit.limiters.single.period=1h")
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withUserConfiguration(Beans.class);

	// The server is this class's own: a clean slate per test keeps the counts independent.
	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void callsAreAdmittedUpToTheLimitThenRejectedWithTheDecision() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(AopUtils.isAopProxy(greeter)).isTrue();
			for (int i = 0; i < 3; i++) {
				assertThat(greeter.greet("ada")).isEqualTo("hello ada");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet("ada"))
				.satisfies((ex) -> {
					assertThat(ex.getLimiterName()).isEqualTo("greeting");
					assertThat(ex.getSpec().limit()).isEqualTo(3);
					RateLimitDecision decision = ex.getDecision();
					assertThat(decision.outcome()).isEqualTo(RateLimitDecision.Outcome.REJECTED);
					assertThat(decision.remaining()).isZero();
					assertThat(decision.limit()).isEqualTo(3);
					// GCRA spaces 3 per hour 20 minutes apart.
					assertThat(decision.retryAfter()).isBetween(Duration.ofMinutes(19), Duration.ofMinutes(20));
					assertThat(ex.getMessage()).doesNotContain("ada");
				});
			assertThat(greeter.calls()).isEqualTo(3);
		});
	}

	@Test
	void keysFromTheExpressionAreCountedSeparately() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			for (int i = 0; i < 3; i++) {
				greeter.greet("ada");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet("ada"));
			assertThat(greeter.greet("grace")).isEqualTo("hello grace");
			assertThat(redis.server().command("EXISTS", "rk:ratelimit:gcra:{greeting:ada}")).isEqualTo(1L);
			assertThat(redis.server().command("EXISTS", "rk:ratelimit:gcra:{greeting:grace}")).isEqualTo(1L);
		});
	}

	@Test
	void withoutAKeyAllCallsShareOneCount() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			greeter.broadcast("a");
			greeter.broadcast("b");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.broadcast("c"));
			assertThat(keys()).containsExactly("rk:ratelimit:sliding-log:{shared:}");
		});
	}

	@Test
	void permitsAreTakenAllOrNone() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			greeter.bulk("ada");
			// 1 of 3 left: two permits are refused, and none is taken.
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.bulk("ada"))
				.satisfies((ex) -> assertThat(ex.getDecision().remaining()).isEqualTo(1));
			greeter.greet("ada");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet("ada"));
		});
	}

	@Test
	void hostileKeyValuesAreDataWithBoundedKeysInTheirOwnSlot() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			String runtime = "T(java.lang.Runtime).getRuntime()";
			String template = "#{1+1}";
			String tag = "{x}";
			String huge = "k".repeat(10 * 1024);
			for (String hostile : List.of(runtime, template, tag, huge)) {
				for (int i = 0; i < 3; i++) {
					assertThat(greeter.greet(hostile)).isEqualTo("hello " + hostile);
				}
				assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet(hostile));
			}
			assertThat(redis.server().command("EXISTS", "rk:ratelimit:gcra:{greeting:" + runtime + "}")).isEqualTo(1L);
			assertThat(redis.server().command("EXISTS", "rk:ratelimit:gcra:{greeting:#%7B1+1%7D}")).isEqualTo(1L);
			assertThat(redis.server().command("EXISTS", "rk:ratelimit:gcra:{greeting:%7Bx%7D}")).isEqualTo(1L);
			List<String> keys = keys();
			assertThat(keys).hasSize(4).allSatisfy((key) -> {
				assertThat(key).hasSizeLessThan(300).startsWith("rk:ratelimit:gcra:{greeting:").endsWith("}");
				// One hash tag, the one KeyNaming opened: user braces cannot choose the slot.
				assertThat(key.chars().filter((c) -> c == '{')).hasSize(1);
				assertThat(key.chars().filter((c) -> c == '}')).hasSize(1);
			});
			assertThat(greeter.calls()).isEqualTo(12);
		});
	}

	@Test
	void aFallbackWithTheSameParametersRunsInsteadWhenRejected() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(greeter.greetOrWave("ada")).isEqualTo("hello ada");
			assertThat(greeter.greetOrWave("ada")).isEqualTo("wave at ada");
			assertThat(greeter.calls()).isEqualTo(1);
		});
	}

	@Test
	void aPrivateFallbackReceivesTheException() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			assertThat(greeter.greetOrExplain("ada", 2)).isEqualTo("hello ada");
			assertThat(greeter.greetOrExplain("ada", 2)).startsWith("single exceeded for ada x2, retry in PT");
		});
	}

	@Test
	void fallbackExceptionsPropagate() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			greeter.greetOrFail("ada");
			assertThatIllegalArgumentException().isThrownBy(() -> greeter.greetOrFail("ada"))
				.withMessage("no more for ada")
				.withCauseInstanceOf(RateLimitExceededException.class);
		});
	}

	@Test
	void annotationsOnInterfacesWork() {
		this.runner.run((context) -> {
			Weather weather = context.getBean(Weather.class);
			assertThat(weather.forecast("oslo")).isEqualTo("rain in oslo");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> weather.forecast("oslo"));
			assertThat(weather.forecast("rome")).isEqualTo("rain in rome");
		});
	}

	@Test
	void decisionsAreCountedByLimiterAndResultNeverByKey() {
		this.runner.run((context) -> {
			Greeter greeter = context.getBean(Greeter.class);
			for (int i = 0; i < 3; i++) {
				greeter.greet("ada");
			}
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> greeter.greet("ada"));
			greeter.greetOrWave("ada");
			greeter.greetOrWave("ada");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("rediskit.ratelimit.decisions")
				.tags("limiter", "greeting", "result", "allowed")
				.counter()
				.count()).isEqualTo(3);
			assertThat(meters.get("rediskit.ratelimit.decisions")
				.tags("limiter", "greeting", "result", "rejected")
				.counter()
				.count()).isEqualTo(1);
			assertThat(meters.get("rediskit.ratelimit.decisions")
				.tags("limiter", "single", "result", "rejected")
				.counter()
				.count()).isEqualTo(1);
			assertThat(meters.get("rediskit.ratelimit.latency").tag("limiter", "greeting").timer().count()).isEqualTo(4);
			assertThat(meters.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTags())
				.allMatch((tag) -> tag.getKey().equals("limiter") || tag.getKey().equals("result"))
				.noneMatch((tag) -> tag.getValue().contains("ada")));
		});
	}

	@Test
	void rejectedCallsNeitherTakeTheLockNorOpenATransaction() {
		this.runner.run((context) -> {
			Orders orders = context.getBean(Orders.class);
			RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
			assertThat(orders.pay("a")).isEqualTo("paid a");
			assertThat(transactions.begun.get()).isEqualTo(1);
			assertThat(redis.server().command("EXISTS", "rk:lock:{orders:a}:fence")).isEqualTo(1L);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> orders.pay("b"));
			assertThat(transactions.begun.get()).isEqualTo(1);
			assertThat(redis.server().command("EXISTS", "rk:lock:{orders:b}:fence")).isEqualTo(0L);
		});
	}

	@Test
	void theFailurePolicyDecidesWhileRedisIsDown() throws Exception {
		int closedPort;
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		this.runner
			.withPropertyValues("spring.data.redis.port=" + closedPort, "spring.data.redis.connect-timeout=500ms",
					"redis-kit.rate-limit.limiters.single.failure-policy=fail-closed")
			.run((context) -> {
				Greeter greeter = context.getBean(Greeter.class);
				assertThat(greeter.greet("ada")).isEqualTo("hello ada");
				assertThatExceptionOfType(RateLimitExceededException.class)
					.isThrownBy(() -> context.getBean(Weather.class).forecast("oslo"))
					.satisfies((ex) -> assertThat(ex.getDecision().outcome())
						.isEqualTo(RateLimitDecision.Outcome.ERROR_REJECTED));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.ratelimit.decisions")
					.tags("limiter", "greeting", "result", "error-allowed")
					.counter()
					.count()).isEqualTo(1);
			});
	}

	@SuppressWarnings("unchecked")
	private static List<String> keys() {
		return (List<String>) redis.server().command("KEYS", "rk:ratelimit:*");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class Beans {

		@Bean
		Greeter greeter() {
			return new Greeter();
		}

		@Bean
		Weather weather() {
			return new SunnyWeather();
		}

		@Bean
		RecordingTransactionManager transactionManager() {
			return new RecordingTransactionManager();
		}

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	static class Greeter {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@RateLimited(name = "greeting", key = "#name")
		public String greet(String name) {
			this.calls.incrementAndGet();
			return "hello " + name;
		}

		@RateLimited(name = "shared")
		public void broadcast(String message) {
		}

		@RateLimited(name = "greeting", key = "#p0", permits = 2)
		public void bulk(String name) {
		}

		@RateLimited(name = "single", key = "#name", fallbackMethod = "wave")
		public String greetOrWave(String name) {
			return greet(name);
		}

		String wave(String name) {
			return "wave at " + name;
		}

		@RateLimited(name = "single", key = "#name + ':explain'", fallbackMethod = "explain")
		public String greetOrExplain(String name, int times) {
			return "hello " + name;
		}

		// Overloads: the one taking the exception is chosen, the narrowest of those.
		private String explain(String name, int times) {
			return "wrong overload";
		}

		private String explain(String name, int times, Exception ex) {
			return "wrong overload";
		}

		private String explain(String name, int times, RateLimitExceededException ex) {
			return ex.getLimiterName() + " exceeded for " + name + " x" + times + ", retry in "
					+ ex.getDecision().retryAfter();
		}

		@RateLimited(name = "single", key = "#name + ':fail'", fallbackMethod = "fail")
		public String greetOrFail(String name) {
			return "hello " + name;
		}

		String fail(String name, RuntimeException ex) {
			throw new IllegalArgumentException("no more for " + name, ex);
		}

	}

	interface Weather {

		@RateLimited(name = "single", key = "#a0")
		String forecast(String city);

	}

	static class SunnyWeather implements Weather {

		@Override
		public String forecast(String city) {
			return "rain in " + city;
		}

	}

	static class Orders {

		@RateLimited(name = "single")
		@DistributedLock(name = "orders", key = "#id")
		@Transactional
		public String pay(String id) {
			return "paid " + id;
		}

	}

	static class RecordingTransactionManager extends AbstractPlatformTransactionManager {

		final AtomicInteger begun = new AtomicInteger();

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}

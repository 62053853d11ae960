package io.rediskit.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one script executor every primitive uses: the shared native Lettuce connection by default, and a
 * documented slower path (a connection borrowed per call, async completing on the calling thread) for an
 * application whose connection factory is Jedis.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScriptExecutorAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void lettuceGetsTheNativePathAndEveryPrimitiveSharesOneExecutor() {
		this.runner.run((context) -> {
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(LettuceConnectionFactory.class);
			assertThat(context).hasSingleBean(ScriptExecutor.class);
			assertThat(context.getBean(ScriptExecutor.class).isNative()).isTrue();
			assertThat(context.getBean(CommandExecutor.class).isNative()).isTrue();
			assertCommandsWork(context.getBean(CommandExecutor.class), "lettuce");
			assertLimiterAndLockWork(context.getBean(RateLimiterRegistry.class), context.getBean(LockRegistry.class));
		});
	}

	@Test
	void jedisGetsTheBorrowedConnectionPathAndSaysSoOnce(CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
			assertThat(context.getBean(ScriptExecutor.class).isNative()).isFalse();
			assertThat(context.getBean(CommandExecutor.class).isNative()).isFalse();
			assertCommandsWork(context.getBean(CommandExecutor.class), "jedis");
			assertLimiterAndLockWork(context.getBean(RateLimiterRegistry.class), context.getBean(LockRegistry.class));
		});
		assertThat(output).containsOnlyOnce("redis-kit runs its scripts on a connection borrowed per call from"
				+ " JedisConnectionFactory");
	}

	private static void assertCommandsWork(CommandExecutor commands, String client) {
		assertThat((Long) commands.execute("PFADD", ReturnType.INTEGER, bytes("hll-" + client), bytes("a")))
			.isEqualTo(1L);
		List<Object> bits = commands.execute("BITFIELD_RO", ReturnType.MULTI, bytes("bits-" + client), bytes("GET"),
				bytes("u1"), bytes("0"));
		assertThat(bits).containsExactly(0L);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static void assertLimiterAndLockWork(RateLimiterRegistry limiters, LockRegistry locks) throws Exception {
		RateLimiter limiter = limiters.create("exec-" + System.nanoTime(),
				RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 3, Duration.ofHours(1)));
		for (int i = 0; i < 2; i++) {
			assertThat(limiter.tryAcquire("k").allowed()).isTrue();
		}
		RateLimitDecision async = limiter.tryAcquireAsync("k").toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(async.allowed()).isTrue();
		assertThat(limiter.tryAcquire("k").allowed()).isFalse();
		RedisLock lock = locks.getLock("exec-" + System.nanoTime());
		try (Lease lease = lock.acquire(Duration.ZERO)) {
			assertThat(lease.fencingToken()).isPositive();
			assertThat(lock.tryAcquire(Duration.ZERO, null)).isEmpty();
		}
	}

}

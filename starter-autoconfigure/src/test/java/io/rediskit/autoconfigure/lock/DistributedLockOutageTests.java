package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @DistributedLock} method that completes while Redis is paused, so that only its release times out:
 * the caller gets the method's result, the failed release is counted, the key stays until its lease ends, and an
 * independent client (its own connection and registry) cannot take the lock before then.
 */
class DistributedLockOutageTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	RedisServerProcess server;

	LettuceConnectionFactory checkerConnections;

	LockRegistry checker;

	@BeforeEach
	void setUp() {
		this.server = RedisServerProcess.start();
		this.checkerConnections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()));
		this.checkerConnections.afterPropertiesSet();
		this.checkerConnections.start();
		this.checker = new LockRegistry(this.checkerConnections);
	}

	@AfterEach
	void tearDown() {
		this.server.resume();
		this.checker.close();
		this.checkerConnections.destroy();
		this.server.close();
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					RedisKitAutoConfiguration.class, LockMetricsAutoConfiguration.class, LockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + this.server.port(),
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms")
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean(Payments.class);
	}

	@Test
	void aBlockingMethodWhoseReleaseTimesOutReturnsItsResult() {
		runner().run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertResultStandsAndLeaseKeepsOthersOut(context, "1",
					() -> CompletableFuture.supplyAsync(() -> payments.pay("1")), payments::finish);
		});
	}

	@Test
	void aCompletionStageWhoseReleaseTimesOutCompletesWithItsResult() {
		runner().run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertResultStandsAndLeaseKeepsOthersOut(context, "2", () -> payments.payAsync("2").toCompletableFuture(),
					payments::finish);
		});
	}

	@Test
	void aMonoWhoseReleaseTimesOutEmitsItsResult() {
		runner().run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertResultStandsAndLeaseKeepsOthersOut(context, "3", () -> payments.payReactive("3").toFuture(),
					payments::finish);
		});
	}

	private void assertResultStandsAndLeaseKeepsOthersOut(AssertableApplicationContext context, String id,
			Supplier<CompletableFuture<String>> pay, Function<String, Boolean> finish) throws Exception {
		Payments payments = context.getBean(Payments.class);
		// Before the call: the lock may be taken as soon as the method is called, and its lease starts then.
		long started = System.nanoTime();
		CompletableFuture<String> call = pay.get();
		assertThat(payments.awaitEntered()).isTrue();
		RedisLock other = this.checker.getLock("pay", id);
		assertThat(other.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isFalse();
		this.server.pause();
		long finished;
		String result;
		try {
			finished = System.nanoTime();
			finish.apply("paid " + id);
			result = call.get(10, TimeUnit.SECONDS);
		}
		finally {
			this.server.resume();
		}
		Duration releaseTook = Duration.ofNanos(System.nanoTime() - finished);
		assertThat(result).isEqualTo("paid " + id);
		// One command timeout for the release, no more.
		assertThat(releaseTook).isLessThan(COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(context.getBean(MeterRegistry.class)
			.get("rediskit.lock.release.failures")
			.tag("lock", "pay")
			.counter()
			.count()).isOne();
		// The independent client: kept out until the lease ends, let in soon after.
		long deadline = started + LEASE.plusSeconds(5).toNanos();
		boolean entered = false;
		while (!entered && System.nanoTime() < deadline) {
			entered = other.tryLock(Duration.ZERO, Duration.ofSeconds(30));
			if (!entered) {
				TimeUnit.MILLISECONDS.sleep(20);
			}
		}
		Duration enteredAfter = Duration.ofNanos(System.nanoTime() - started);
		assertThat(entered).isTrue();
		other.unlock();
		assertThat(enteredAfter).isGreaterThanOrEqualTo(LEASE).isLessThan(LEASE.plusSeconds(2));
	}

	/** Payments whose work the test finishes while Redis is paused. */
	static class Payments {

		final CountDownLatch entered = new CountDownLatch(1);

		final CompletableFuture<String> work = new CompletableFuture<>();

		@DistributedLock(name = "pay", key = "#id", leaseTime = "3s")
		public String pay(String id) {
			this.entered.countDown();
			return this.work.join();
		}

		@DistributedLock(name = "pay", key = "#id", leaseTime = "3s")
		public CompletionStage<String> payAsync(String id) {
			this.entered.countDown();
			return this.work;
		}

		@DistributedLock(name = "pay", key = "#id", leaseTime = "3s")
		public Mono<String> payReactive(String id) {
			this.entered.countDown();
			return Mono.fromFuture(this.work);
		}

		// Methods, not fields: the test holds the class-based proxy, whose fields are not the target's.
		public boolean awaitEntered() throws InterruptedException {
			return this.entered.await(10, TimeUnit.SECONDS);
		}

		public boolean finish(String result) {
			return this.work.complete(result);
		}

	}

}

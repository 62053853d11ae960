package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.support.RedisKitContext;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cancelled subscription to a {@code @DistributedLock} {@code Mono} leaves no observation open: a wait cancelled
 * before the lock came ends as {@code interrupted}, a hold cancelled while the method ran ends as {@code released}.
 */
class ReactiveLockObservationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final Recorder recorder = new Recorder();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port())
		.withBean(ObservationRegistry.class, () -> {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(this.recorder);
			return registry;
		})
		.withUserConfiguration(Beans.class);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void aSubscriptionCancelledWhileWaitingLeavesNoWaitOpen() {
		this.runner.run((context) -> {
			Lease other = context.getBean(LockRegistry.class).getLock("jobs").acquireAsync(Duration.ZERO)
				.toCompletableFuture().join();
			Disposable subscription = context.getBean(Jobs.class).forever().subscribe();
			// The other owner's wait ended, its hold and this subscription's wait are open.
			await(() -> this.recorder.outcomes("rediskit.lock.wait").size() == 1 && this.recorder.open() == 2);
			subscription.dispose();
			await(() -> this.recorder.outcomes("rediskit.lock.wait").size() == 2);
			assertThat(this.recorder.outcomes("rediskit.lock.wait")).containsExactly("acquired", "interrupted");
			other.close();
			await(() -> this.recorder.open() == 0);
		});
	}

	@Test
	void aSubscriptionCancelledWhileHoldingEndsTheHold() {
		this.runner.run((context) -> {
			Disposable subscription = context.getBean(Jobs.class).forever().subscribe();
			await(() -> this.recorder.outcomes("rediskit.lock.wait").size() == 1 && this.recorder.open() == 1);
			subscription.dispose();
			await(() -> this.recorder.open() == 0);
			assertThat(this.recorder.outcomes("rediskit.lock.wait")).containsExactly("acquired");
			assertThat(this.recorder.outcomes("rediskit.lock.hold")).containsExactly("released");
		});
	}

	private static void await(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition met within 30 s").isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		@DistributedLock(name = "jobs", waitTime = "5m")
		Mono<String> forever() {
			return Mono.never();
		}

	}

	/** The open redis-kit observations and the outcomes of the ended ones, by name. */
	static final class Recorder implements ObservationHandler<Observation.Context> {

		private final Set<Observation.Context> open = ConcurrentHashMap.newKeySet();

		private final Queue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

		@Override
		public void onStart(Observation.Context context) {
			this.open.add(context);
		}

		@Override
		public void onStop(Observation.Context context) {
			this.open.remove(context);
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof RedisKitContext;
		}

		int open() {
			return this.open.size();
		}

		List<String> outcomes(String name) {
			return this.stopped.stream()
				.filter((context) -> name.equals(context.getName()))
				.map((context) -> ((RedisKitContext) context).outcome())
				.toList();
		}

	}

}

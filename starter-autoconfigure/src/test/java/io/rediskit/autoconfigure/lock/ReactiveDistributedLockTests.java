package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.reactive.BlockHoundGate;
import io.rediskit.autoconfigure.reactive.OverlapChecker;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock} on methods returning {@code Mono}, {@code Flux} and {@code CompletionStage}, against a
 * real redis-server: acquired on subscription without blocking, held until the publisher ends, released on
 * completion, error and cancellation, renewed while it runs.
 */
class ReactiveDistributedLockTests {

	private static final String KEY = "rk:lock:{jobs}";

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class, ObservationAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(), "redis-kit.lock.max-poll-interval=200ms")
		.withUserConfiguration(Beans.class);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void nothingHappensBeforeSubscriptionAndTheLockIsHeldUntilCompletion() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch running = new CountDownLatch(1);
			CompletableFuture<String> finish = new CompletableFuture<>();
			Mono<String> mono = jobs.until(running, finish);
			assertThat(jobs.calls()).isZero();
			assertThat(redis.server().dbSize()).isZero();
			CompletableFuture<String> result = mono.toFuture();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(1L);
			finish.complete("done");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
			// A second subscription calls the method again under the lock.
			CountDownLatch again = new CountDownLatch(1);
			assertThat(jobs.until(again, CompletableFuture.completedFuture("again")).block(Duration.ofSeconds(10)))
				.isEqualTo("again");
			assertThat(jobs.calls()).isEqualTo(2);
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void manyConcurrentSubscribersNeverOverlap() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			int subscribers = 24;
			// The shared connection opens on first use, which blocks once: open it before BlockHound watches.
			assertThat(jobs.quick().block(Duration.ofSeconds(10))).isEqualTo("quick");
			try (BlockHoundGate gate = BlockHoundGate.open()) {
				List<Mono<List<String>>> all = new ArrayList<>();
				for (int i = 0; i < subscribers; i++) {
					String id = "s" + i;
					all.add((i % 2 == 0) ? jobs.exclusive(id).map(List::of) : jobs.exclusiveFlux(id).collectList());
				}
				Flux.merge(Flux.fromIterable(all).map((mono) -> mono.subscribeOn(Schedulers.parallel())))
					.then()
					.block(Duration.ofMinutes(2));
				assertThat(BlockHoundGate.violations()).isEmpty();
			}
			assertThat(jobs.checker().completed()).isEqualTo(subscribers);
			assertThat(jobs.checker().problems()).isEmpty();
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void errorsAreSignalledAndReleaseTheLock() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatThrownBy(() -> jobs.failing().block(Duration.ofSeconds(10))).hasMessage("failed inside");
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
			assertThatThrownBy(() -> jobs.throwing().block(Duration.ofSeconds(10))).hasMessage("thrown");
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void aBusyLockIsAnErrorSignalAfterTheWaitTime() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			try (Lease lease = context.getBean(LockRegistry.class).getLock("jobs").acquire(Duration.ZERO)) {
				assertThatThrownBy(() -> jobs.quick().block(Duration.ofSeconds(10)))
					.isInstanceOf(LockNotAcquiredException.class);
				assertThat(jobs.calls()).isZero();
			}
		});
	}

	@Test
	void cancellingWhileHoldingReleasesTheLock() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CountDownLatch running = new CountDownLatch(1);
			Disposable subscription = jobs.until(running, new CompletableFuture<>()).subscribe();
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(1L);
			subscription.dispose();
			awaitTrue(() -> Long.valueOf(0).equals(redis.server().command("EXISTS", KEY)));
		});
	}

	@Test
	void cancellingDuringABusyWaitEndsTheWaitAndTakesNothing() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Queue<String> results = context.getBean(Results.class).results;
			RedisLock lock = context.getBean(LockRegistry.class).getLock("jobs");
			Lease holder = lock.acquire(Duration.ZERO);
			results.clear();
			Disposable subscription = jobs.patient().subscribe();
			// The waiter has joined the lock's release channel: it is in its busy wait.
			awaitTrue(() -> Long.valueOf(1).equals(numsub("rk:lock:{jobs}:released")));
			subscription.dispose();
			awaitTrue(() -> results.contains("interrupted"));
			holder.close();
			assertThat(jobs.calls()).isZero();
			awaitTrue(() -> Long.valueOf(0).equals(numsub("rk:lock:{jobs}:released")));
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void cancellationsRacingTheAcquisitionLeaveNoKey() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			Results events = context.getBean(Results.class);
			for (int round = 0; round < 5; round++) {
				events.clear();
				List<Disposable> subscriptions = new ArrayList<>();
				for (int i = 0; i < 200; i++) {
					// Subscribing starts the acquisition on this thread, so each subscription reports one result.
					subscriptions.add(jobs.until(new CountDownLatch(1), new CompletableFuture<>()).subscribe());
					// Cancel at varying points: during the first attempt, while waiting, and while holding.
					if (i % 4 != 0) {
						subscriptions.remove(0).dispose();
					}
				}
				subscriptions.forEach(Disposable::dispose);
				// Every acquisition has ended and every lease it gave has been released. A grant that arrived
				// after its cancellation is undone before its acquisition ends, so from here on nobody holds or
				// takes the lock: the key is gone at once, not eventually.
				try {
					awaitTrue(() -> events.results.size() == 200 && events.releases.get() == events.acquired());
				}
				catch (AssertionError ex) {
					throw new AssertionError("round " + round + ": " + events.results.size() + " results " + events.results
							+ ", releases " + events.releases.get() + ", acquired " + events.acquired(), ex);
				}
				assertThat(redis.server().command("EXISTS", KEY)).as("round %d", round).isEqualTo(0L);
				RedisLock lock = context.getBean(LockRegistry.class).getLock("jobs");
				assertThat(lock.tryLock()).as("round %d", round).isTrue();
				lock.unlock();
			}
		});
	}

	@Test
	void theWatchdogRenewsTheLeaseWhileALongPublisherRuns() {
		this.runner.withPropertyValues("redis-kit.lock.watchdog-timeout=600ms").run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			// Runs for five leases; the key must still be there, and owned, at the end of the work.
			List<Long> seen = jobs.longRunning(Duration.ofMillis(3000), () -> (Long) redis.server().command("EXISTS", KEY))
				.block(Duration.ofSeconds(30));
			assertThat(seen).containsExactly(1L);
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void aCompletionStageIsLockedUntilItCompletes() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> finish = new CompletableFuture<>();
			CompletableFuture<String> result = jobs.stage(finish).toCompletableFuture();
			awaitTrue(() -> jobs.calls() == 1);
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(1L);
			finish.complete("staged");
			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("staged");
			assertThat(redis.server().command("EXISTS", KEY)).isEqualTo(0L);
		});
	}

	@Test
	void aPausedServerIsNotAcquiredWithinTheCommandTimeoutWithoutBlocking() {
		try (RedisServerProcess paused = RedisServerProcess.start()) {
			this.runner.withPropertyValues("spring.data.redis.port=" + paused.port(), "spring.data.redis.timeout=500ms")
				.run((context) -> {
					Jobs jobs = context.getBean(Jobs.class);
					assertThat(jobs.quick().block(Duration.ofSeconds(10))).isEqualTo("quick");
					paused.pause();
					try (BlockHoundGate gate = BlockHoundGate.open()) {
						long started = System.nanoTime();
						assertThatThrownBy(() -> Mono.defer(jobs::quick)
							.subscribeOn(Schedulers.parallel())
							.block(Duration.ofSeconds(10))).isInstanceOf(LockNotAcquiredException.class)
							.hasCauseInstanceOf(org.springframework.dao.QueryTimeoutException.class);
						assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
						assertThat(BlockHoundGate.violations()).isEmpty();
					}
					finally {
						paused.resume();
					}
				});
		}
	}

	private static Object numsub(String channel) {
		List<?> reply = (List<?>) redis.server().command("PUBSUB", "NUMSUB", channel);
		return reply.get(1);
	}

	/** Waits for a condition that the code under test makes true, with a generous bound. */
	private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime()).as("condition within 20 s").isLessThan(deadline);
			Thread.sleep(10);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Beans {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

		@Bean
		Results results() {
			return new Results();
		}

	}

	/** The outcomes of the lock waits and the released holds, from their observations. */
	static class Results implements ObservationHandler<Observation.Context> {

		final Queue<String> results = new ConcurrentLinkedQueue<>();

		final AtomicInteger releases = new AtomicInteger();

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof RedisKitContext;
		}

		@Override
		public void onStop(Observation.Context context) {
			RedisKitContext observed = (RedisKitContext) context;
			if (observed.observation() == RedisKitObservation.LOCK_WAIT) {
				this.results.add(observed.outcome());
			}
			else if (observed.observation() == RedisKitObservation.LOCK_HOLD && observed.outcome().equals("released")) {
				this.releases.incrementAndGet();
			}
		}

		long acquired() {
			return this.results.stream().filter("acquired"::equals).count();
		}

		void clear() {
			this.results.clear();
			this.releases.set(0);
		}

	}

	static class Jobs {

		private final AtomicInteger calls = new AtomicInteger();

		private final OverlapChecker checker = new OverlapChecker();

		// Read through methods: the proxy's own fields are not the target's.
		int calls() {
			return this.calls.get();
		}

		OverlapChecker checker() {
			return this.checker;
		}

		@DistributedLock(name = "jobs", waitTime = "30s")
		Mono<String> until(CountDownLatch running, CompletableFuture<String> finish) {
			this.calls.incrementAndGet();
			return Mono.fromRunnable(running::countDown).then(Mono.fromFuture(finish));
		}

		@DistributedLock(name = "jobs", waitTime = "60s")
		Mono<String> exclusive(String id) {
			return Mono.fromRunnable(() -> this.checker.enter(id))
				.then(Mono.delay(Duration.ofMillis(10)))
				.then(Mono.fromSupplier(() -> {
					this.checker.exit(id);
					return id;
				}));
		}

		@DistributedLock(name = "jobs", waitTime = "60s")
		Flux<String> exclusiveFlux(String id) {
			return Flux.concat(Mono.fromRunnable(() -> this.checker.enter(id)),
					Flux.interval(Duration.ofMillis(3)).take(3).map(String::valueOf),
					Mono.fromRunnable(() -> this.checker.exit(id)));
		}

		@DistributedLock(name = "jobs")
		Mono<String> failing() {
			return Mono.delay(Duration.ofMillis(5)).then(Mono.error(new IllegalStateException("failed inside")));
		}

		@DistributedLock(name = "jobs")
		Mono<String> throwing() {
			throw new IllegalStateException("thrown");
		}

		@DistributedLock(name = "jobs", waitTime = "0s")
		Mono<String> quick() {
			this.calls.incrementAndGet();
			return Mono.just("quick");
		}

		@DistributedLock(name = "jobs", waitTime = "60s")
		Mono<String> patient() {
			this.calls.incrementAndGet();
			return Mono.just("patient");
		}

		@DistributedLock(name = "jobs")
		Mono<List<Long>> longRunning(Duration work, java.util.function.Supplier<Long> probe) {
			return Mono.delay(work).map((tick) -> List.of(probe.get()));
		}

		@DistributedLock(name = "jobs")
		CompletionStage<String> stage(CompletableFuture<String> finish) {
			this.calls.incrementAndGet();
			return finish;
		}

	}

}

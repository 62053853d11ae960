package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.Lease;
import io.rediskit.lock.SemaphoreNotAcquiredException;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedSemaphore} on real beans against a real redis-server: never more concurrent calls than the
 * permits (counted independently by the method itself), the failure strategies of {@code @DistributedLock},
 * reactive methods, and bad annotations failing startup naming the method.
 */
class DistributedSemaphoreAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, SemaphoreAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port())
		.withBean(Reports.class);

	@Test
	void neverMoreConcurrentCallsThanPermits() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			assertThat(AopUtils.isAopProxy(reports)).isTrue();
			ExecutorService executor = Executors.newFixedThreadPool(12);
			try {
				List<Future<?>> tasks = new ArrayList<>();
				for (int t = 0; t < 12; t++) {
					tasks.add(executor.submit(() -> {
						for (int i = 0; i < 10; i++) {
							reports.render();
						}
					}));
				}
				for (Future<?> task : tasks) {
					task.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(reports.calls()).isEqualTo(120);
			assertThat(reports.mostAtOnce()).isBetween(2, 3);
			assertThat(redis.server().command("EXISTS", "rk:semaphore:{report}")).isEqualTo(0L);
		});
	}

	@Test
	void failureStrategiesAreThoseOfTheLock() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			SemaphoreRegistry registry = context.getBean(SemaphoreRegistry.class);
			try (Lease all = registry.getSemaphore("export", 1).acquire(1, Duration.ZERO)) {
				assertThat(reports.exportOrFallBack()).isEqualTo("busy: export");
				assertThat(reports.exportOrSkip()).isNull();
				assertThatExceptionOfType(SemaphoreNotAcquiredException.class).isThrownBy(reports::exportOrThrow)
					.withMessage("1 permit of semaphore 'export' were not acquired within PT0S");
				assertThatExceptionOfType(SemaphoreNotAcquiredException.class)
					.isThrownBy(() -> reports.exportLater().block(Duration.ofSeconds(10)));
				assertThat(all.isActive()).isTrue();
			}
			assertThat(reports.exportOrThrow()).isEqualTo("exported");
			assertThat(reports.exportLater().block(Duration.ofSeconds(10))).isEqualTo("exported later");
			assertThat(reports.tenantExport("acme")).isEqualTo("acme");
			assertThat(redis.server().command("EXISTS", "rk:semaphore:{tenant:acme}:state")).isEqualTo(1L);
		});
	}

	@Test
	void aReactiveMethodHoldsItsPermitsUntilItsPublisherEnds() {
		this.runner.run((context) -> {
			Reports reports = context.getBean(Reports.class);
			SemaphoreRegistry registry = context.getBean(SemaphoreRegistry.class);
			CompletableFuture<Object> gate = new CompletableFuture<>();
			reports.gate(gate);
			CompletableFuture<Object> running = reports.exportWhenOpen().toFuture();
			LockTestingAwait.until("the permit to be taken",
					() -> registry.getSemaphore("export", 1).availablePermits() == 0);
			assertThat(registry.getSemaphore("export", 1).tryAcquire(1, Duration.ZERO)).isEmpty();
			gate.complete("open");
			assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo("open");
			LockTestingAwait.until("the permit to come back",
					() -> registry.getSemaphore("export", 1).availablePermits() == 1);
		});
	}

	@Test
	void badAnnotationsFailStartupNamingTheMethod() {
		this.runner.withBean(BadReports.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure().getMessage()).contains(
					"permits of @DistributedSemaphore(name = \"a\", permits = 0) on BadReports.noPermits() must be at"
							+ " least 1, was 0",
					"permitsPerCall of @DistributedSemaphore(name = \"b\", permits = 2) on BadReports.tooHeavy() must be"
							+ " between 1 and permits (2), was 3",
					"waitTime 'soon' of @DistributedSemaphore(name = \"c\", permits = 1) on BadReports.notADuration()"
							+ " is not a duration",
					"@DistributedSemaphore(name = \"d\", permits = 1) on BadReports.later(): onNotAcquired = SKIP is"
							+ " not supported on a method returning Mono",
					"name of @DistributedSemaphore(name = \"monthly.report\", permits = 1) on BadReports.dotted() must be"
							+ " 1 to 64 letters, digits, '-' or '_', starting with a letter or digit (no '.', ':' or space),"
							+ " was 'monthly.report'");
		});
	}

	/** Counts its own concurrent calls: an independent check of the bound. */
	static class Reports {

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger mostAtOnce = new AtomicInteger();

		final AtomicInteger calls = new AtomicInteger();

		volatile CompletableFuture<Object> gate = new CompletableFuture<>();

		// Read and set through methods: the bean is a class proxy, whose own fields are not the target's.
		public int calls() {
			return this.calls.get();
		}

		public int mostAtOnce() {
			return this.mostAtOnce.get();
		}

		public void gate(CompletableFuture<Object> gate) {
			this.gate = gate;
		}

		@DistributedSemaphore(name = "report", permits = 3, waitTime = "60s")
		public void render() {
			int now = this.running.incrementAndGet();
			this.mostAtOnce.accumulateAndGet(now, Math::max);
			try {
				Thread.sleep(2);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.calls.incrementAndGet();
			this.running.decrementAndGet();
		}

		@DistributedSemaphore(name = "export", permits = 1, waitTime = "0s", fallbackMethod = "busy")
		public String exportOrFallBack() {
			return "exported";
		}

		String busy(SemaphoreNotAcquiredException ex) {
			return "busy: " + ex.getLockName();
		}

		@DistributedSemaphore(name = "export", permits = 1, waitTime = "0s",
				onNotAcquired = DistributedSemaphore.OnNotAcquired.SKIP)
		public String exportOrSkip() {
			return "exported";
		}

		@DistributedSemaphore(name = "export", permits = 1, waitTime = "0s")
		public String exportOrThrow() {
			return "exported";
		}

		@DistributedSemaphore(name = "export", permits = 1, waitTime = "0s")
		public Mono<String> exportLater() {
			return Mono.just("exported later");
		}

		@DistributedSemaphore(name = "export", permits = 1, waitTime = "0s")
		public Mono<Object> exportWhenOpen() {
			return Mono.fromFuture(this.gate);
		}

		@DistributedSemaphore(name = "tenant", key = "#tenant", permits = 2, waitTime = "1s")
		public String tenantExport(String tenant) {
			return tenant;
		}

	}

	static class BadReports {

		@DistributedSemaphore(name = "a", permits = 0)
		public void noPermits() {
		}

		@DistributedSemaphore(name = "b", permits = 2, permitsPerCall = 3)
		public void tooHeavy() {
		}

		@DistributedSemaphore(name = "c", permits = 1, waitTime = "soon")
		public void notADuration() {
		}

		@DistributedSemaphore(name = "d", permits = 1, onNotAcquired = DistributedSemaphore.OnNotAcquired.SKIP)
		public Mono<String> later() {
			return Mono.empty();
		}

		@DistributedSemaphore(name = "monthly.report", permits = 1)
		public void dotted() {
		}

	}

}

package io.rediskit.autoconfigure.lock;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @ScheduledLock} on real beans against a real redis-server. */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledLockAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class, LockMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(), "job.at-least=2s")
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new);

	@Test
	void aRunElsewhereIsASilentCountedSkip(CapturedOutput output) {
		this.runner.withUserConfiguration(Scheduling.class).withBean(Report.class).run((context) -> {
			Report report = context.getBean(Report.class);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				Future<String> first = executor.submit(() -> report.run("a"));
				assertThat(report.awaitEntered()).isTrue();
				assertThat(report.run("b")).isNull();
				report.release();
				assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("ran a");
			}
			finally {
				executor.shutdownNow();
			}
			// Lock-at-least keeps the slot taken after the run ended.
			assertThat(redis.server().command("HGET", "rk:lock:{nightly-report}", "o")).isEqualTo("");
			assertThat(report.run("c")).isNull();
			assertThat(report.runs()).isEqualTo(1);
			assertThat(skips(context)).isEqualTo(2);
			// Only this test's own threads: a client another test left behind may be finalized meanwhile, and
			// Lettuce warns about it from the Finalizer thread.
			assertThat(output.toString().lines().filter((line) -> !line.contains("Finalizer]")))
				.noneMatch((line) -> line.contains("ERROR") || line.contains("WARN"));
		});
	}

	@Test
	void withoutSchedulingItWarnsOnceNamingTheMethods(CapturedOutput output) {
		this.runner.withBean(Report.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output.toString().lines().filter((line) -> line.contains("scheduling is not enabled")))
				.singleElement()
				.asString()
				.contains("WARN")
				.contains("@ScheduledLock on Report.run(String): scheduling is not enabled, so @Scheduled methods never"
						+ " run. Add @EnableScheduling to a @Configuration class");
		});
	}

	@Test
	void withSchedulingItDoesNotWarn(CapturedOutput output) {
		this.runner.withUserConfiguration(Scheduling.class).withBean(Report.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).doesNotContain("scheduling is not enabled");
		});
	}

	@Test
	void badAnnotationsFailStartupNamingTheAttribute() {
		this.runner.withBean(BadJobs.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure().getMessage()).contains(
					"lockAtLeastFor of @ScheduledLock(name = \"a\") on BadJobs.longerAtLeast() (2m) must not be longer"
							+ " than lockAtMostFor (1m)",
					"lockAtMostFor 'soon' of @ScheduledLock(name = \"b\") on BadJobs.notADuration() is not a duration",
					"@ScheduledLock(name = \"c\") on BadJobs.count() returns int: a skipped run returns null",
					"@ScheduledLock(name = \"d\") on BadJobs.later() returns CompletableFuture: a scheduled lock holds a"
							+ " blocking run",
					"key '#nosuch' of @ScheduledLock(name = \"e\") on BadJobs.keyed(String) names #nosuch",
					"lockAtMostFor of @ScheduledLock(name = \"f\") on BadJobs.noAtMost() must be at least 1ms",
					"name of @ScheduledLock(name = \"nightly.report\") on BadJobs.dotted() must be 1 to 64 letters,"
							+ " digits, '-' or '_', starting with a letter or digit (no '.', ':' or space), was"
							+ " 'nightly.report'",
					"name of @ScheduledLock(name = \"nightly report\") on BadJobs.spaced() must be");
		});
	}

	private static double skips(AssertableApplicationContext context) {
		return context.getBean(MeterRegistry.class)
			.get("rediskit.lock.acquire")
			.tag("lock", "nightly-report")
			.tag("result", "skipped")
			.timer()
			.count();
	}

	// Read through the proxy by methods: its own fields are not the target's.
	static class Report {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final AtomicInteger runs = new AtomicInteger();

		public boolean awaitEntered() throws InterruptedException {
			return this.entered.await(30, TimeUnit.SECONDS);
		}

		public void release() {
			this.release.countDown();
		}

		public int runs() {
			return this.runs.get();
		}

		@ScheduledLock(name = "nightly-report", lockAtLeastFor = "${job.at-least}", lockAtMostFor = "1m")
		public String run(String label) throws InterruptedException {
			this.runs.incrementAndGet();
			this.entered.countDown();
			this.release.await(30, TimeUnit.SECONDS);
			return "ran " + label;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	static class BadJobs {

		@ScheduledLock(name = "a", lockAtLeastFor = "2m", lockAtMostFor = "1m")
		public void longerAtLeast() {
		}

		@ScheduledLock(name = "b", lockAtMostFor = "soon")
		public void notADuration() {
		}

		@ScheduledLock(name = "c", lockAtMostFor = "1m")
		public int count() {
			return 1;
		}

		@ScheduledLock(name = "d", lockAtMostFor = "1m")
		public java.util.concurrent.CompletableFuture<String> later() {
			return java.util.concurrent.CompletableFuture.completedFuture("x");
		}

		@ScheduledLock(name = "e", key = "#nosuch", lockAtMostFor = "1m")
		public void keyed(String name) {
		}

		@ScheduledLock(name = "f", lockAtMostFor = "0s")
		public void noAtMost() {
		}

		@ScheduledLock(name = "nightly.report", lockAtMostFor = "1m")
		public void dotted() {
		}

		@ScheduledLock(name = "nightly report", lockAtMostFor = "1m")
		public void spaced() {
		}

	}

}

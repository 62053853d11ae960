package io.rediskit.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.rediskit.autoconfigure.lock.LatchAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.support.Background;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one {@link Background} of an application: built once by the starter on Spring Boot's task scheduler and
 * {@code applicationTaskExecutor}, shared by every area (no area starts a scheduler thread of its own), and replaced
 * by the application's own bean.
 */
class BackgroundAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final Set<Thread> schedulersBefore = areaSchedulers();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
				TaskSchedulingAutoConfiguration.class, DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				LockAutoConfiguration.class, LatchAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void runsOnSpringBootsSchedulerAndTaskExecutor() {
		this.runner.withUserConfiguration(Scheduling.class).run((context) -> {
			assertThat(context).hasSingleBean(Background.class);
			Background background = context.getBean(Background.class);
			assertThat(background.scheduler()).isSameAs(context.getBean("taskScheduler", TaskScheduler.class));
			assertThat(background.executor()).isSameAs(context.getBean("applicationTaskExecutor", Executor.class));
			assertNoSchedulerOfAnAreasOwn(context.getBean(LockRegistry.class));
		});
	}

	@Test
	void withoutAnApplicationSchedulerOneThreadIsSharedByEveryArea() {
		this.runner.run((context) -> {
			Background background = context.getBean(Background.class);
			assertThat(background.schedulerGiven()).isFalse();
			assertThat(background.executor()).isSameAs(context.getBean("applicationTaskExecutor", Executor.class));
			assertNoSchedulerOfAnAreasOwn(context.getBean(LockRegistry.class));
		});
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	void virtualThreadsWhenSpringBootRunsOnThem() {
		this.runner.withUserConfiguration(Scheduling.class)
			.withPropertyValues("spring.threads.virtual.enabled=true")
			.run((context) -> {
				Background background = context.getBean(Background.class);
				CompletableFuture<Thread> ran = new CompletableFuture<>();
				background.executor().execute(() -> ran.complete(Thread.currentThread()));
				Thread thread = ran.get(10, TimeUnit.SECONDS);
				// Thread.isVirtual is Java 21's; the module compiles for 17.
				assertThat(Thread.class.getMethod("isVirtual").invoke(thread)).as("virtual").isEqualTo(true);
				assertThat(background.scheduler()).isSameAs(context.getBean("taskScheduler", TaskScheduler.class));
			});
	}

	@Test
	void theApplicationsOwnBackgroundReplacesTheStartersAndIsLeftRunning() {
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("application-background-");
		scheduler.initialize();
		Background own = Background.of(scheduler, null);
		try {
			this.runner.withBean(Background.class, () -> own).run((context) -> {
				assertThat(context).getBean(Background.class).isSameAs(own);
				assertNoSchedulerOfAnAreasOwn(context.getBean(LockRegistry.class));
			});
			assertThat(scheduler.getScheduledExecutor().isShutdown()).isFalse();
		}
		finally {
			own.close();
			scheduler.shutdown();
		}
	}

	/**
	 * A lock taken runs its watchdog; a registry given no background would start a scheduler thread of its own. Other
	 * tests of the JVM may have left such threads behind: only the ones started since the test began count.
	 */
	private void assertNoSchedulerOfAnAreasOwn(LockRegistry registry) throws InterruptedException {
		RedisLock lock = registry.getLock("background-" + System.nanoTime());
		assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
		lock.unlock();
		assertThat(areaSchedulers()).isSubsetOf(this.schedulersBefore);
	}

	private static Set<Thread> areaSchedulers() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().matches("redis-kit-(lock|latch|queue|cache|availability)-scheduler"))
			.collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

}

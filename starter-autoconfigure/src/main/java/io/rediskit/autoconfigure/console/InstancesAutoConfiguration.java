package io.rediskit.autoconfigure.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.cache.CacheAutoConfiguration;
import io.rediskit.autoconfigure.lock.FairLockAutoConfiguration;
import io.rediskit.autoconfigure.lock.LeaderElectionAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.ReadWriteLockAutoConfiguration;
import io.rediskit.autoconfigure.lock.RedlockAutoConfiguration;
import io.rediskit.autoconfigure.lock.ScheduledJobs;
import io.rediskit.autoconfigure.lock.SemaphoreAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueListenerContainerRegistry;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.instance.InstanceHold;
import io.rediskit.instance.InstanceInfo;
import io.rediskit.instance.InstanceLeadership;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.instance.InstanceReport;
import io.rediskit.instance.InstanceSemaphore;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.RedisCountDownLatch;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.HeldLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Keeps this instance's heartbeat in Redis ({@link InstanceRegistry}) when {@code redis-kit.console.enabled=true}
 * and {@code redis-kit.console.heartbeat.enabled} is not false, in any application (a worker without a web server
 * too), so that every instance's console lists the live instances, what each runs (the queues it consumes, the
 * recurring and scheduled jobs it triggers, the roles it stands for), the roles it leads, the locks, permits and roles it holds,
 * the semaphores and latches it uses (their names: every console reads their permits and counts in Redis), and the
 * caches it uses (their names: every instance's {@code rediskitcache} endpoint and console may evict from them). The
 * heartbeat starts with the application and, on a clean shutdown, removes the instance's entry.
 */
@AutoConfiguration(after = { RedisKitAutoConfiguration.class, LockAutoConfiguration.class,
		RedlockAutoConfiguration.class, LeaderElectionAutoConfiguration.class, SemaphoreAutoConfiguration.class,
		ReadWriteLockAutoConfiguration.class, FairLockAutoConfiguration.class, QueueAutoConfiguration.class,
		CacheAutoConfiguration.class })
@ConditionalOnBean(ScriptExecutor.class)
@ConditionalOnBooleanProperty("redis-kit.console.enabled")
@ConditionalOnBooleanProperty(name = "redis-kit.console.heartbeat.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ConsoleProperties.class)
public final class InstancesAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	InstanceRegistry redisKitInstances(ConsoleProperties properties, ScriptExecutor scripts, KeyNaming keyNaming,
			Background background, Environment environment, ObjectProvider<LockRegistry> locks,
			ObjectProvider<RedlockRegistry> redlocks, ObjectProvider<SemaphoreRegistry> semaphores,
			ObjectProvider<FairLockRegistry> fairLocks, ObjectProvider<ReadWriteLockRegistry> readWriteLocks,
			ObjectProvider<LeaderElections> leaders, ObjectProvider<ScheduledJobs> scheduledJobs,
			ObjectProvider<RecurringJobs> recurringJobs, ObjectProvider<QueueListenerContainerRegistry> containers,
			ObjectProvider<LatchRegistry> latches, ObjectProvider<RedisKitCacheManager> caches) {
		ConsoleAutoConfiguration.checked(properties);
		String application = environment.getProperty("spring.application.name", "application");
		String version = environment.getProperty("spring.application.version", version());
		InstanceInfo self = InstanceInfo.current(application, version);
		return new InstanceRegistry(scripts, keyNaming, self, properties.getHeartbeat().getInterval(),
				properties.getHeartbeat().getRetention(), () -> {
					List<String> runs = new ArrayList<>();
					containers.stream().flatMap((registry) -> registry.getContainers().stream())
						.forEach((container) -> runs.add("queue:" + container.getQueue().name()));
					recurringJobs.stream().flatMap((jobs) -> jobs.jobs().stream())
						.forEach((job) -> runs.add("recurring:" + job.name()));
					scheduledJobs.stream().flatMap((jobs) -> jobs.jobs().stream())
						.forEach((job) -> runs.add("scheduled:" + job.name()));
					List<InstanceHold> holds = new ArrayList<>();
					held(holds, "single", locks, LockRegistry::heldLocks);
					held(holds, "redlock", redlocks, RedlockRegistry::heldLocks);
					held(holds, "semaphore", semaphores, SemaphoreRegistry::heldPermits);
					held(holds, "fair", fairLocks, FairLockRegistry::heldLocks);
					held(holds, "readwrite", readWriteLocks, ReadWriteLockRegistry::heldLocks);
					List<InstanceLeadership> leads = new ArrayList<>();
					leaders.stream().flatMap((each) -> each.elections().stream()).forEach((election) -> {
						runs.add("candidate:" + election.role());
						// No Redis call: the term is this instance's own, the start that of the role's lock it holds.
						election.term().ifPresent((term) -> leads.add(new InstanceLeadership(election.role(), term,
								holds.stream().filter((hold) -> hold.fencingToken() == term).findFirst()
									.map(InstanceHold::heldSince).orElse(Instant.now()))));
					});
					// Names only, no Redis call: any instance's console reads their permits and counts.
					List<InstanceSemaphore> used = semaphores.stream().flatMap((registry) -> registry.semaphores().stream())
						.map((semaphore) -> new InstanceSemaphore(semaphore.name(), semaphore.total())).toList();
					List<String> latchNames = latches.stream().flatMap((registry) -> registry.latches().stream())
						.map(RedisCountDownLatch::name).toList();
					List<String> cacheNames = caches.stream().flatMap((manager) -> manager.getCacheNames().stream())
						.toList();
					return new InstanceReport(runs, holds, leads, used, latchNames, cacheNames);
				}, background);
	}

	@Bean
	SmartLifecycle redisKitInstancesHeartbeat(InstanceRegistry instances) {
		return new SmartLifecycle() {

			@Override
			public void start() {
				instances.start();
			}

			@Override
			public void stop() {
				instances.stop();
			}

			@Override
			public boolean isRunning() {
				return instances.isRunning();
			}

			// Beats once the locks, elections, recurring jobs and queue listeners run, so that its first report
			// lists them; stops before they stop, so that its last is not of them half stopped (the entry is removed
			// when the registry is destroyed).
			@Override
			public int getPhase() {
				return QueueListenerContainer.PHASE + 1;
			}

		};
	}

	private static <R> void held(List<InstanceHold> holds, String kind, ObjectProvider<R> registries,
			Function<R, List<HeldLock>> held) {
		registries.stream().flatMap((registry) -> held.apply(registry).stream())
			.forEach((lock) -> holds.add(new InstanceHold(kind, lock.name(), lock.fencingToken(), lock.leaseRemaining(),
					lock.owner(), lock.heldSince())));
	}

	private static String version() {
		String version = InstanceRegistry.class.getPackage().getImplementationVersion();
		return (version != null) ? "redis-kit " + version : "unknown";
	}

}

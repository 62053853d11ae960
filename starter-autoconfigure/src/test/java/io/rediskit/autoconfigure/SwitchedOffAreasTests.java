package io.rediskit.autoconfigure;

import io.rediskit.autoconfigure.lock.LeaderElectionAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.SemaphoreAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.autoconfigure.support.StartupFailures;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An area switched off does not silently ignore what the application relies on: annotated methods would run
 * unguarded, roles would have no candidate.
 */
class SwitchedOffAreasTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisKitAutoConfiguration.class, LockAutoConfiguration.class, SemaphoreAutoConfiguration.class,
				RateLimitAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void aLockedMethodFailsStartupWhileTheLockIsOffNamingTheMethodAndTheWayOut() {
		this.runner.withBean(Jobs.class).withPropertyValues("redis-kit.lock.enabled=false").run((context) -> {
			FailureAnalysis analysis = StartupFailures.analyze(context);
			assertThat(analysis.getDescription()).startsWith("redis-kit found 2 invalid annotations:")
				.contains("bean 'switchedOffAreasTests.Jobs' (" + Jobs.class.getName() + "): @DistributedLock on"
						+ " Jobs.export() would run unguarded: redis-kit.lock.enabled is false. Turn it on, remove the"
						+ " annotation, or set redis-kit.lock.unguarded-when-disabled=true to run such methods without it")
				.contains("@ScheduledLock on Jobs.nightly() would run unguarded: redis-kit.lock.enabled is false");
		});
	}

	@Test
	void aLockedMethodRunsUnguardedWhileTheLockIsOffWhenTheApplicationSaysSo() {
		this.runner.withBean(Jobs.class)
			.withPropertyValues("redis-kit.lock.enabled=false", "redis-kit.lock.unguarded-when-disabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(Jobs.class).export()).isEqualTo("exported");
			});
	}

	@Test
	void aRateLimitedMethodFailsStartupWhileRateLimitingIsOffUnlessTheApplicationSaysSo() {
		this.runner.withBean(Login.class).withPropertyValues("redis-kit.rate-limit.enabled=false").run((context) ->
			assertThat(StartupFailures.analyze(context).getDescription()).contains("@RateLimited on Login.login(String)"
					+ " would run unguarded: redis-kit.rate-limit.enabled is false. Turn it on, remove the annotation, or"
					+ " set redis-kit.rate-limit.unguarded-when-disabled=true"));
		this.runner.withBean(Login.class)
			.withPropertyValues("redis-kit.rate-limit.enabled=false", "redis-kit.rate-limit.unguarded-when-disabled=true")
			.run((context) -> assertThat(context.getBean(Login.class).login("ann")).isEqualTo("ann"));
	}

	@Test
	void aSemaphoreMethodFailsStartupWhileSemaphoresOrTheLockAreOffUnlessTheApplicationSaysSo() {
		this.runner.withBean(Reports.class).withPropertyValues("redis-kit.lock.semaphore.enabled=false")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("@DistributedSemaphore on Reports.render() would run unguarded: redis-kit.lock.semaphore.enabled"
						+ " is false. Turn it on, remove the annotation, or set"
						+ " redis-kit.lock.semaphore.unguarded-when-disabled=true"));
		this.runner.withBean(Reports.class).withPropertyValues("redis-kit.lock.enabled=false")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("@DistributedSemaphore on Reports.render() would run unguarded: redis-kit.lock.enabled is false")
				.contains("set redis-kit.lock.semaphore.unguarded-when-disabled=true"));
		this.runner.withBean(Reports.class)
			.withPropertyValues("redis-kit.lock.semaphore.enabled=false",
					"redis-kit.lock.semaphore.unguarded-when-disabled=true")
			.run((context) -> assertThat(context.getBean(Reports.class).render()).isEqualTo("rendered"));
		this.runner.withBean(Reports.class)
			.withPropertyValues("redis-kit.lock.enabled=false", "redis-kit.lock.unguarded-when-disabled=true")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void rolesFailStartupWhileLeaderElectionIsOff() {
		this.runner.withPropertyValues("redis-kit.lock.leader.enabled=false", "redis-kit.lock.leader.roles=nightly-billing")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.lock.leader.roles\n    Value: \"nightly-billing\"\n    Reason: redis-kit.lock.leader.roles"
						+ " names roles, but leader election is off (redis-kit.lock.leader.enabled=false): no instance would"
						+ " stand for them. Remove the roles, or turn leader election on"));
		this.runner.withPropertyValues("redis-kit.lock.enabled=false", "redis-kit.lock.leader.roles[0]=nightly-billing")
			.run((context) -> assertThat(StartupFailures.analyze(context).getDescription())
				.contains("Property: redis-kit.lock.leader.roles[0]\n")
				.contains("leader election is off (redis-kit.lock.enabled=false)"));
		this.runner.withPropertyValues("redis-kit.lock.leader.enabled=false").run((context) -> assertThat(context).hasNotFailed());
	}

	static class Jobs {

		@DistributedLock(name = "export")
		public String export() {
			return "exported";
		}

		@ScheduledLock(name = "nightly", lockAtMostFor = "1m")
		public void nightly() {
		}

	}

	static class Login {

		@RateLimited(name = "login", key = "#user")
		public String login(String user) {
			return user;
		}

	}

	static class Reports {

		@DistributedSemaphore(name = "reports", permits = 2)
		public String render() {
			return "rendered";
		}

	}

}

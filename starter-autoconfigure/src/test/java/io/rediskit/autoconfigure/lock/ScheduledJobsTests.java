package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.autoconfigure.lock.ScheduledJobs.Outcome;
import io.rediskit.autoconfigure.lock.ScheduledJobs.ScheduledJob;
import io.rediskit.lock.JobLock;
import io.rediskit.lock.LockLeaseLostException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What {@link ScheduledJobs} records of runs, skips, a failing run and a run that lost its lock: two instances
 * (each its own registry, interceptor and record) racing the same slots on a real redis-server, and the job's
 * state in Redis ({@link JobLock#state()}) at each step.
 */
class ScheduledJobsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private LettuceConnectionFactory connections;

	private LockRegistry registryA;

	private LockRegistry registryB;

	private final ScheduledJobs recordA = new ScheduledJobs();

	private final ScheduledJobs recordB = new ScheduledJobs();

	private Jobs jobsA;

	private Jobs jobsB;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()));
		this.connections.afterPropertiesSet();
		this.connections.start();
		this.registryA = new LockRegistry(this.connections);
		this.registryB = new LockRegistry(this.connections);
		this.jobsA = instance(this.registryA, this.recordA, false);
		this.jobsB = instance(this.registryB, this.recordB, true);
	}

	@AfterEach
	void tearDown() {
		this.jobsA.release();
		this.registryA.close();
		this.registryB.close();
		this.connections.destroy();
	}

	@Test
	void aRunHereIsASkipThereAndLockAtLeastKeepsTheSlot() throws Exception {
		JobLock lock = this.registryA.getJobLock("digest");
		assertThat(lock.state().status()).isEqualTo(JobLock.Status.FREE);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<String> run = executor.submit(this.jobsA::digest);
			assertThat(this.jobsA.awaitEntered()).isTrue();
			assertThat(lock.state().status()).isEqualTo(JobLock.Status.HELD);
			assertThat(only(this.recordA)).satisfies((job) -> {
				assertThat(job.running()).isEqualTo(1);
				assertThat(job.lastStart()).isNotNull();
				assertThat(job.lastOutcome()).isNull();
			});
			assertThat(this.jobsB.digest()).isNull();
			this.jobsA.release();
			assertThat(run.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
		}
		finally {
			executor.shutdownNow();
		}
		JobLock.State kept = lock.state();
		assertThat(kept.status()).isEqualTo(JobLock.Status.KEPT);
		assertThat(kept.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
		assertThat(this.jobsB.digest()).isNull();
		ScheduledJob ran = only(this.recordA);
		assertThat(ran.name()).isEqualTo("digest");
		assertThat(ran.keyed()).isFalse();
		assertThat(ran.lockAtLeastFor()).isEqualTo(Duration.ofMinutes(1));
		assertThat(ran.lockAtMostFor()).isEqualTo(Duration.ofMinutes(5));
		assertThat(ran.runs()).isEqualTo(1);
		assertThat(ran.skips()).isZero();
		assertThat(ran.running()).isZero();
		assertThat(ran.lastOutcome()).isEqualTo(Outcome.RAN);
		assertThat(ran.lastEnd()).isAfterOrEqualTo(ran.lastStart());
		assertThat(ran.lastSkip()).isNull();
		ScheduledJob skipped = only(this.recordB);
		assertThat(skipped.runs()).isZero();
		assertThat(skipped.skips()).isEqualTo(2);
		assertThat(skipped.lastSkip()).isNotNull();
		assertThat(skipped.lastStart()).isNull();
		assertThat(skipped.lastOutcome()).isNull();
	}

	@Test
	void aFailingRunAndARunThatLostItsLockAreRecordedAsSuch() {
		assertThatIllegalStateException().isThrownBy(this.jobsA::failing).withMessage("boom");
		assertThat(only(this.recordA).lastOutcome()).isEqualTo(Outcome.FAILED);
		assertThat(this.registryA.getJobLock("failing").state().status()).isEqualTo(JobLock.Status.FREE);
		// The other instance runs the freed slot, and loses the lock mid-run (its key gone, as after lock-at-most).
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(this.jobsB::failing);
		assertThat(only(this.recordB)).satisfies((job) -> {
			assertThat(job.runs()).isEqualTo(1);
			assertThat(job.lastOutcome()).isEqualTo(Outcome.LEASE_LOST);
			assertThat(job.running()).isZero();
		});
		assertThat(only(this.recordA).runs()).isEqualTo(1);
	}

	private static ScheduledJob only(ScheduledJobs record) {
		assertThat(record.jobs()).hasSize(1);
		return record.jobs().get(0);
	}

	private static Jobs instance(LockRegistry registry, ScheduledJobs record, boolean losesLock) {
		StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("lockRegistry", registry));
		ScheduledLockInterceptor interceptor = new ScheduledLockInterceptor(beans.getBeanProvider(LockRegistry.class),
				new StandardEnvironment(), record);
		ProxyFactory proxies = new ProxyFactory(new Jobs(losesLock));
		proxies.setProxyTargetClass(true);
		proxies.addAdvisor(new ScheduledLockAdvisor(interceptor));
		return (Jobs) proxies.getProxy();
	}

	// One per instance. Read through the proxy by methods: its own fields are not the target's.
	static class Jobs {

		private final CountDownLatch entered = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final boolean losesLock;

		Jobs(boolean losesLock) {
			this.losesLock = losesLock;
		}

		public boolean awaitEntered() throws InterruptedException {
			return this.entered.await(10, TimeUnit.SECONDS);
		}

		public void release() {
			this.release.countDown();
		}

		@ScheduledLock(name = "digest", lockAtLeastFor = "1m", lockAtMostFor = "5m")
		public String digest() throws InterruptedException {
			this.entered.countDown();
			this.release.await(10, TimeUnit.SECONDS);
			return "ran";
		}

		@ScheduledLock(name = "failing", lockAtMostFor = "5m")
		public void failing() {
			if (!this.losesLock) {
				throw new IllegalStateException("boom");
			}
			redis.server().command("DEL", "rk:lock:{failing}");
		}

	}

}

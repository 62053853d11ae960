package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link JobLock} against a real redis-server: the scenarios a scheduler lock provider must pass (as
 * ShedLock's provider suite describes them: a second lock is refused, a released lock is taken again at once,
 * independent names do not interfere, lock-at-most frees a lock nobody released, lock-at-least keeps one released
 * early, a long run is extended), written for this lock, plus the watchdog's cap at lock-at-most.
 */
class JobLockTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final Duration LONG = Duration.ofMinutes(1);

	RedisServerProcess server;

	LockTesting.RecordingListener listener;

	LockRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.listener = new LockTesting.RecordingListener();
		this.registry = registry(LockSpec.defaults());
	}

	@AfterEach
	void tearDown() {
		this.registry.close();
	}

	private LockRegistry registry(LockSpec spec) {
		return LockTesting.observed(new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(), spec,
				List.of(this.listener), Clock.systemUTC()), this.listener);
	}

	@Test
	void aSecondStartWhileARunHoldsTheLockIsASkip() {
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run run = lock.tryStart(Duration.ZERO, LONG).orElseThrow();
		assertThat(lock.tryStart(Duration.ZERO, LONG)).isEmpty();
		assertThat(this.registry.getJobLock("report").tryStart(Duration.ZERO, LONG)).isEmpty();
		// The regular lock of the name is the same key.
		assertThat(this.registry.getLock("report").tryLock()).isFalse();
		run.close();
		assertThat(this.listener.events).containsExactly("acquire report ACQUIRED", "acquire report SKIPPED",
				"acquire report SKIPPED", "acquire report TIMEOUT", "release report");
		assertThat(this.server.command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
	}

	@Test
	void aLockEndedWithoutLockAtLeastIsTakenAgainAtOnceWithAHigherToken() {
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run first = lock.tryStart(Duration.ZERO, LONG).orElseThrow();
		first.close();
		JobLock.Run second = lock.tryStart(Duration.ZERO, LONG).orElseThrow();
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		second.close();
		// Closing twice changes nothing.
		second.close();
		assertThat(this.listener.count("release report")).isEqualTo(2);
	}

	@Test
	void independentNamesDoNotInterfere() {
		JobLock.Run report = this.registry.getJobLock("report").tryStart(Duration.ZERO, LONG).orElseThrow();
		JobLock.Run cleanup = this.registry.getJobLock("jobs", "cleanup")
			.tryStart(Duration.ZERO, LONG)
			.orElseThrow();
		assertThat(this.registry.getJobLock("jobs", "cleanup").tryStart(Duration.ZERO, LONG)).isEmpty();
		report.close();
		cleanup.close();
		assertThat(this.listener.events).contains("acquire jobs SKIPPED");
	}

	@Test
	void lockAtLeastKeepsALockEndedEarlyOwnedByNobody() {
		JobLock lock = this.registry.getJobLock("report");
		lock.tryStart(Duration.ofSeconds(2), LONG).orElseThrow().close();
		assertThat(this.server.command("HGET", "rk:lock:{report}", "o")).isEqualTo("");
		long kept = (Long) this.server.command("PTTL", "rk:lock:{report}");
		assertThat(kept).isBetween(1L, 2000L);
		assertThat(lock.tryStart(Duration.ZERO, LONG)).isEmpty();
		assertThat(this.registry.getLock("report").tryLock()).isFalse();
		awaitCondition("the lock-at-least time to pass", Duration.ofSeconds(10),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{report}")));
		lock.tryStart(Duration.ZERO, LONG).orElseThrow().close();
	}

	@Test
	void lockAtLeastIsCountedFromTheStartOfTheRun() {
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run run = lock.tryStart(Duration.ofMillis(300), LONG).orElseThrow();
		long started = storedStart();
		awaitCondition("the run to outlast lock-at-least", Duration.ofSeconds(5), () -> serverMillis() - started > 400);
		run.close();
		assertThat(this.server.command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
	}

	@Test
	void lockAtMostFreesALockNobodyReleasedAndItsEndReportsTheLoss() {
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run crashed = lock.tryStart(Duration.ZERO, Duration.ofMillis(800)).orElseThrow();
		assertThat((Long) this.server.command("PTTL", "rk:lock:{report}")).isBetween(1L, 800L);
		awaitCondition("lock-at-most to pass", Duration.ofSeconds(10),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{report}")));
		JobLock.Run next = lock.tryStart(Duration.ZERO, LONG).orElseThrow();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(crashed::close);
		assertThat(this.server.command("HGET", "rk:lock:{report}", "o")).isNotEqualTo("");
		next.close();
		assertThat(this.server.command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
	}

	@Test
	void theWatchdogExtendsALongRunButNotPastLockAtMost() {
		this.registry.close();
		this.registry = registry(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(600)));
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run run = lock.tryStart(Duration.ZERO, Duration.ofSeconds(3)).orElseThrow();
		assertThat((Long) this.server.command("PTTL", "rk:lock:{report}")).isBetween(1L, 600L);
		long started = storedStart();
		// Three leases long: held only if the watchdog renewed it.
		awaitCondition("the run to outlast three leases", Duration.ofSeconds(10), () -> serverMillis() - started > 1800);
		assertThat(this.server.command("HGET", "rk:lock:{report}", "o")).isNotEqualTo("");
		assertThat(lock.tryStart(Duration.ZERO, LONG)).isEmpty();
		assertThat(this.listener.count("renewal report RENEWED")).isPositive();
		awaitCondition("lock-at-most to end the run", Duration.ofSeconds(10),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{report}")));
		// Redis expires a key on its clock within a millisecond of its time; the bound allows for that.
		assertThat(serverMillis() - started).isGreaterThanOrEqualTo(2990);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(run::close);
	}

	@Test
	void stateTellsHeldFromKeptFromFreeWithTheTimeLeft() {
		JobLock lock = this.registry.getJobLock("report");
		assertThat(lock.state()).isEqualTo(new JobLock.State(JobLock.Status.FREE, Duration.ZERO));
		JobLock.Run run = lock.tryStart(LONG, Duration.ofMinutes(5)).orElseThrow();
		JobLock.State held = this.registry.getJobLock("report").state();
		assertThat(held.status()).isEqualTo(JobLock.Status.HELD);
		assertThat(held.remaining()).isPositive().isLessThanOrEqualTo(LockSpec.defaults().watchdogTimeout());
		run.close();
		JobLock.State kept = lock.state();
		assertThat(kept.status()).isEqualTo(JobLock.Status.KEPT);
		assertThat(kept.remaining()).isPositive().isLessThanOrEqualTo(LONG);
		this.server.command("DEL", "rk:lock:{report}");
		assertThat(lock.state().status()).isEqualTo(JobLock.Status.FREE);
		// Reading is no acquisition: only the run's start and end are reported.
		assertThat(this.listener.events).containsExactly("acquire report ACQUIRED", "release report");
	}

	@Test
	void boundsOutOfRangeAreRejectedNamingTheArgument() {
		JobLock lock = this.registry.getJobLock("report");
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryStart(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessage("lockAtLeastFor (PT2S) must not be longer than lockAtMostFor (PT1S)");
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryStart(Duration.ofSeconds(-1), LONG))
			.withMessageStartingWith("lockAtLeastFor must not be negative");
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryStart(Duration.ZERO, Duration.ZERO))
			.withMessageStartingWith("lockAtMostFor must be at least 1ms");
		assertThat(this.server.command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
	}

	@Test
	void theScriptsAreSafeToReplay() {
		JobLock lock = this.registry.getJobLock("report");
		JobLock.Run run = lock.tryStart(Duration.ofSeconds(30), LONG).orElseThrow();
		String owner = (String) this.server.command("HGET", "rk:lock:{report}", "o");
		LockScripts.Keys keys = this.registry.getLock("report").keys();
		LockScripts scripts = new LockScripts(redis.scripts(), redis.connections());
		LockScripts.Attempt replayed = scripts.startScheduled(keys, owner, 1000, 60_000).toCompletableFuture().join();
		assertThat(replayed.acquired()).isTrue();
		assertThat(replayed.fencingToken()).isEqualTo(run.fencingToken());
		run.close();
		assertThat(scripts.endScheduled(keys, owner, 30_000).toCompletableFuture().join()).isPositive();
		assertThat(scripts.endScheduled(keys, "someone else", 30_000).toCompletableFuture().join()).isEqualTo(-1L);
	}

	/** The stored start of the run holding {@code report}, server ms. */
	private long storedStart() {
		return Long.parseLong((String) this.server.command("HGET", "rk:lock:{report}", "a"));
	}

	private long serverMillis() {
		@SuppressWarnings("unchecked")
		List<String> time = (List<String>) this.server.command("TIME");
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

}

package io.rediskit.leader;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.Observation;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.LockTesting;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Leader election among instances of one JVM against a real redis-server: one leader, granted and revoked in
 * order, the term as the lock's fencing token, who leads as Redis has it, yielding and stopping hand the role
 * over in a higher term, a lock taken over from under the leader revokes it, and bad arguments.
 */
class LeaderElectionTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final Duration LEASE = Duration.ofMillis(1500);

	static final Duration PATIENCE = Duration.ofSeconds(20);

	final TermLog log = new TermLog();

	final List<LockRegistry> registries = new ArrayList<>();

	final List<LeaderElections> instances = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@AfterEach
	void tearDown() {
		this.instances.forEach(LeaderElections::stop);
		this.registries.forEach(LockRegistry::close);
	}

	private LeaderElection candidate(String instance, String role) {
		return candidate(instance, role, Observations.NOOP);
	}

	private LeaderElection candidate(String instance, String role, Observations observations) {
		LockRegistry registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults().withWatchdogTimeout(LEASE), List.of(), Clock.systemUTC());
		registry.setObservations(observations);
		this.registries.add(registry);
		LeaderElections elections = new LeaderElections(registry,
				List.of(LeaderElectionFaultTests.recorder(this.log, instance)), instance, Duration.ofMillis(20));
		this.instances.add(elections);
		LeaderElection election = elections.elect(role);
		elections.start();
		return election;
	}

	@Test
	void oneLeaderWhoseTermIsTheLocksTokenAndWhoYields() throws Exception {
		LeaderElection a = candidate("a", "billing");
		LeaderElection b = candidate("b", "billing");
		TermLog.Entry first = this.log.await("a leader", 0, TermLog.Entry::granted, PATIENCE);
		LeaderElection leader = first.instance().equals("a") ? a : b;
		LeaderElection follower = (leader == a) ? b : a;
		assertThat(leader.isLeader()).isTrue();
		assertThat(follower.isLeader()).isFalse();
		assertThat(leader.term()).contains(first.term());
		assertThat(follower.term()).isEmpty();
		assertThat(leader.currentLeader()).contains(new LeaderElection.Leader(first.instance(), first.term()));
		assertThat(follower.currentLeader()).as("asked of Redis from either").isEqualTo(leader.currentLeader());
		assertThat(redis.server().command("HGET", key("leader:billing"), "f"))
			.isEqualTo(Long.toString(first.term()));
		// Candidates keep trying; none is granted while the leader holds.
		LockTesting.awaitCondition("ticks", PATIENCE, () -> this.registries.get(0).heldLocks().size()
				+ this.registries.get(1).heldLocks().size() == 1);

		int mark = this.log.size();
		assertThat(follower.yieldLeadership()).as("not the leader").isFalse();
		assertThat(leader.yieldLeadership()).isTrue();
		TermLog.Entry revoked = this.log.await("the yield", mark, (entry) -> !entry.granted(), PATIENCE);
		assertThat(revoked.reason()).isEqualTo("YIELDED");
		TermLog.Entry next = this.log.await("the next leader", mark, TermLog.Entry::granted, PATIENCE);
		assertThat(next.instance()).as("the other candidate, while the yielder stays out").isEqualTo(follower.instance());
		assertThat(next.term()).isGreaterThan(first.term());

		mark = this.log.size();
		follower.stop();
		assertThat(this.log.await("the stop", mark, (entry) -> !entry.granted(), PATIENCE).reason())
			.isEqualTo("STOPPED");
		TermLog.Entry last = this.log.await("the first candidate again", mark, TermLog.Entry::granted, PATIENCE);
		assertThat(last.instance()).isEqualTo(leader.instance());
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aFollowersTriesEndAsSkippedWithoutAnErrorAndTheTermIsAHold() throws Exception {
		ObservationRecorder recorder = new ObservationRecorder();
		Observations observations = recorder.observations();
		candidate("a", "billing", observations);
		candidate("b", "billing", observations);
		this.log.await("a leader", 0, TermLog.Entry::granted, PATIENCE);
		// The follower tries on every tick: a few of its tries, each a wait that finds the leader in place.
		LockTesting.awaitCondition("the follower's tries", PATIENCE,
				() -> recorder.stopped(RedisKitObservation.LOCK_WAIT).size() >= 5);
		List<Observation.Context> waits = recorder.stopped(RedisKitObservation.LOCK_WAIT);
		assertThat(waits).extracting(ObservationRecorder::outcome).as("a term acquired, every other try skipped")
			.containsOnly("acquired", "skipped")
			.contains("acquired", "skipped");
		assertThat(waits).allSatisfy((wait) -> {
			assertThat(wait.getError()).as("a follower's try is no error").isNull();
			assertThat(((RedisKitContext) wait).configuredName()).isEqualTo("leader");
		});
		// The term is a hold (a lease lost on a loaded machine ends one, and the next term opens another).
		assertThat(recorder.open(RedisKitObservation.LOCK_HOLD).size()
				+ recorder.stopped(RedisKitObservation.LOCK_HOLD).size()).as("the term, a hold").isPositive();
		assertThat(this.log.violations()).isEmpty();
	}

	@Test
	void aLeaderWhoseSchedulerShutsDownRevokesItselfAsStopped() throws Exception {
		// Spring shuts the application's scheduler down as the context closes, before the registry stops. The next
		// tick's reschedule was refused and reached the scheduler's error handler (an ERROR at every shutdown),
		// and the leader kept its role with nothing left to renew or revoke it.
		ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
		scheduler.initialize();
		LockRegistry registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults().withWatchdogTimeout(LEASE), List.of(), Clock.systemUTC());
		registry.setBackground(Background.of(scheduler, null));
		this.registries.add(registry);
		LeaderElections elections = new LeaderElections(registry,
				List.of(LeaderElectionFaultTests.recorder(this.log, "a")), "a", Duration.ofMillis(20));
		elections.setBackground(Background.of(scheduler, null));
		this.instances.add(elections);
		LeaderElection a = elections.elect("closing");
		elections.start();
		this.log.await("a leader", 0, TermLog.Entry::granted, PATIENCE);
		// Delayed tasks still run after shutdown(): the pending tick runs and its reschedule is refused.
		scheduler.getScheduledThreadPoolExecutor().shutdown();
		TermLog.Entry revoked = this.log.await("the revocation", 0, (entry) -> !entry.granted(), PATIENCE);
		assertThat(revoked.reason()).isEqualTo("STOPPED");
		assertThat(a.isLeader()).isFalse();
	}

	@Test
	void aLeaderWhoseLockIsTakenOverRevokesItself() throws Exception {
		LeaderElection a = candidate("a", "sweeper");
		TermLog.Entry granted = this.log.await("a leader", 0, TermLog.Entry::granted, PATIENCE);
		// Someone else's owner in the hash: the next renewal (a third of the lease away) finds the lock taken over.
		redis.server().command("HSET", key("leader:sweeper"), "o", "intruder");
		TermLog.Entry revoked = this.log.await("the revocation", 0, (entry) -> !entry.granted(), PATIENCE);
		assertThat(revoked.term()).isEqualTo(granted.term());
		assertThat(revoked.reason()).isEqualTo("LEASE_LOST");
		assertThat(a.isLeader()).isFalse();
		assertThat(redis.server().command("HGET", key("leader:sweeper"), "o"))
			.as("the intruder's lock left alone").isEqualTo("intruder");
	}

	@Test
	void aLeaderWhoseLeaseIsInDoubtRevokesItselfBeforeTheKeyExpires() throws Exception {
		String key = key("leader:doubt");
		List<Object> ttlAtRevocation = new java.util.concurrent.CopyOnWriteArrayList<>();
		LockRegistry registry = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults().withWatchdogTimeout(LEASE), List.of(), Clock.systemUTC());
		this.registries.add(registry);
		LeaderElections elections = new LeaderElections(registry, List.of(new LeadershipListener() {

			@Override
			public void onRevoked(LeadershipRevokedEvent event) {
				// Asked of the server by the test's own client, as the revocation happens.
				ttlAtRevocation.add(redis.server().command("PTTL", key));
				LeaderElectionFaultTests.recorder(LeaderElectionTests.this.log, "a").onRevoked(event);
			}

			@Override
			public void onGranted(LeadershipGrantedEvent event) {
				LeaderElectionFaultTests.recorder(LeaderElectionTests.this.log, "a").onGranted(event);
			}

		}), "a", Duration.ofMillis(20));
		this.instances.add(elections);
		LeaderElection a = elections.elect("doubt");
		elections.start();
		this.log.await("a leader", 0, TermLog.Entry::granted, PATIENCE);
		// Renewals stop as if Redis no longer answered this instance: the watchdog skips a hold with one in flight.
		assertThat(LockTesting.stallRenewals(registry, "leader:doubt")).isOne();
		TermLog.Entry revoked = this.log.await("the revocation", 0, (entry) -> !entry.granted(), PATIENCE);
		assertThat(revoked.reason()).isEqualTo("LEASE_LOST");
		assertThat(a.isLeader()).isFalse();
		assertThat(ttlAtRevocation).singleElement()
			.satisfies((ttl) -> assertThat((Long) ttl).as("ms the key had left").isPositive());
	}

	@Test
	void argumentsAreChecked() {
		LockRegistry registry = new LockRegistry(redis.connections());
		this.registries.add(registry);
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaderElections(registry, List.of(), "a/b",
				Duration.ofSeconds(1))).withMessageContaining("instance");
		assertThatIllegalArgumentException().isThrownBy(() -> new LeaderElections(registry, List.of(), "a",
				Duration.ZERO)).withMessageContaining("retryInterval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new LeaderElections(registry, List.of()).elect(""))
			.withMessageContaining("role");
	}

	private static String key(String lockName) {
		return KeyNaming.defaults().key("lock", lockName);
	}

}

package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ReplicaWait;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link LockSpec#replicaWait()} on a Sentinel group and a cluster of their own: an acquisition waits for the
 * replica and is on it when the call returns; with the replica paused ({@code SIGSTOP}) too few replicas
 * acknowledge and the policy applies: {@code FAIL} undoes the acquisition and throws, {@code ACCEPT} keeps it
 * and tells the listener; a renewal's shortfall is reported.
 */
class LockReplicaWaitTests {

	static RedisTopology sentinel;

	static RedisTopology cluster;

	@BeforeAll
	static void start() {
		sentinel = RedisTopology.start(Topology.SENTINEL);
		cluster = RedisTopology.start(Topology.CLUSTER);
	}

	@AfterAll
	static void stop() {
		sentinel.close();
		cluster.close();
	}

	private static LockRegistry registry(RedisTopology redis, LockSpec spec, LockListener listener) {
		return LockTesting.observed(new LockRegistry(TopologyScripts.of(redis), redis.connections(), KeyNaming.defaults(),
				spec, List.of(listener), Clock.systemUTC()), listener);
	}

	private static RedisServerProcess replicaFor(RedisTopology redis, String key) {
		return (redis.topology() == Topology.CLUSTER) ? redis.cluster().replicaOf(redis.cluster().masterFor(key))
				: redis.sentinel().replicas().get(0);
	}

	@Test
	void onSentinelAnAcquisitionIsOnTheReplicaWhenItReturnsAndFailsWhenTheReplicaIsPaused() throws Exception {
		failsWithoutReplica(sentinel);
	}

	@Test
	void onClusterAnAcquisitionIsOnTheKeysReplicaWhenItReturnsAndFailsWhenThatReplicaIsPaused() throws Exception {
		failsWithoutReplica(cluster);
	}

	private void failsWithoutReplica(RedisTopology redis) throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		LockSpec spec = LockSpec.defaults().withReplicaWait(ReplicaWait.failing(1, Duration.ofMillis(300)));
		try (LockRegistry registry = registry(redis, spec, listener)) {
			for (int i = 0; i < 20; i++) {
				String name = redis.unique("replicated");
				String key = KeyNaming.defaults().key("lock", name);
				RedisServerProcess replica = replicaFor(redis, key);
				try (Lease lease = registry.getLock(name).acquire(Duration.ZERO)) {
					// WAIT returned 1: the replica had the write before acquire returned.
					Object onReplica = (redis.topology() == Topology.CLUSTER) ? replica.readOnlyCommand("HGET", key, "f")
							: replica.command("HGET", key, "f");
					assertThat(onReplica).isEqualTo(Long.toString(lease.fencingToken()));
				}
			}
			String name = redis.unique("unreplicated");
			String key = KeyNaming.defaults().key("lock", name);
			RedisServerProcess replica = replicaFor(redis, key);
			replica.pause();
			try {
				assertThatExceptionOfType(LockNotReplicatedException.class)
					.isThrownBy(() -> registry.getLock(name).acquire(Duration.ZERO))
					.satisfies((ex) -> assertThat(ex.getAcknowledged()).isZero())
					.withMessageContaining("only 0 of 1 required replicas acknowledged");
				awaitCondition("the unreplicated acquisition undone", Duration.ofSeconds(10), () -> !redis.exists(key));
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> registry.getLock(name).acquireAsync(Duration.ZERO).toCompletableFuture()
						.get(10, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(LockNotReplicatedException.class);
				awaitCondition("the async acquisition undone", Duration.ofSeconds(10), () -> !redis.exists(key));
				assertThat(registry.heldLocks()).isEmpty();
			}
			finally {
				replica.resume();
			}
			awaitHealthy(redis);
			assertThat(registry.getLock(name).tryLock()).as("with the replica back").isTrue();
			registry.getLock(name).unlock();
		}
	}

	@Test
	void underAcceptAShortfallKeepsTheLockAndIsReportedForAcquisitionsAndRenewals() throws Exception {
		for (RedisTopology redis : List.of(sentinel, cluster)) {
			LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
			LockSpec spec = LockSpec.defaults()
				.withWatchdogTimeout(Duration.ofMillis(1500))
				.withReplicaWait(ReplicaWait.accepting(1, Duration.ofMillis(200)));
			try (LockRegistry registry = registry(redis, spec, listener)) {
				String name = redis.unique("accepted");
				String key = KeyNaming.defaults().key("lock", name);
				RedisServerProcess replica = replicaFor(redis, key);
				replica.pause();
				try {
					Lease lease = registry.getLock(name).acquire(Duration.ZERO);
					assertThat(lease.isActive()).isTrue();
					assertThat(listener.events).contains("shortfall " + name + " 0/1");
					awaitCondition("a renewal's shortfall", Duration.ofSeconds(20),
							() -> listener.count("renewal " + name + " RENEWED") >= 1
									&& listener.count("shortfall " + name) >= 2);
					lease.close();
				}
				finally {
					replica.resume();
				}
				awaitHealthy(redis);
			}
		}
	}

	private static void awaitHealthy(RedisTopology redis) {
		if (redis.topology() == Topology.CLUSTER) {
			redis.cluster().awaitHealthy();
		}
		else {
			redis.sentinel().awaitHealthy();
		}
	}

}

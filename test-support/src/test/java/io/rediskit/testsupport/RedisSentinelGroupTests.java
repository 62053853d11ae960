package io.rediskit.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedisSentinelGroupTests {

	@Test
	void startsMonitoredAndFailsOverOnRequestAndOnAKilledMaster() {
		long started = System.nanoTime();
		List<RedisServerProcess> all = new ArrayList<>();
		try (RedisSentinelGroup group = RedisSentinelGroup.start()) {
			System.out.printf("sentinel group started in %d ms%n", (System.nanoTime() - started) / 1_000_000);
			all.addAll(group.dataNodes());
			all.addAll(group.sentinels());
			try {
				failOverOnRequestThenOnAKill(group);
			}
			catch (AssertionError | RuntimeException ex) {
				// What the Sentinels decided is in their logs, gone once the group closes.
				ex.addSuppressed(new IllegalStateException("Logs of the group:\n" + group.logs()));
				throw ex;
			}
		}
		assertThat(all).noneMatch(RedisServerProcess::isAlive);
	}

	private static void failOverOnRequestThenOnAKill(RedisSentinelGroup group) {
		assertThat(group.sentinels()).hasSize(3);
		RedisServerProcess master = group.master();
		assertThat(master).isSameAs(group.dataNodes().get(0));
		RedisServerProcess replica = group.replicas().get(0);
		master.command("SET", "k", "v");
		master.command("WAIT", "1", "5000");
		assertThat(replica.command("GET", "k")).isEqualTo("v");

		RedisServerProcess promoted = group.failover();
		assertThat(promoted).isSameAs(replica);
		assertThat(group.master()).isSameAs(replica);
		assertThat(promoted.command("GET", "k")).isEqualTo("v");
		group.awaitHealthy();
		assertThat((String) master.command("INFO", "replication")).contains("role:slave");

		long killedAt = System.nanoTime();
		RedisServerProcess afterKill = group.killMaster();
		System.out.printf("kill -9 of the master: new master serving after %d ms%n", (System.nanoTime() - killedAt) / 1_000_000);
		assertThat(afterKill).isSameAs(master);
		group.restart(promoted);
		// With a down-after of 1000 ms the Sentinels sometimes failed over a second time here, to the restarted node.
		assertThat(group.replicas()).containsExactly(promoted);
	}

}

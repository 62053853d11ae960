package io.rediskit.testsupport;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedisClusterTests {

	@Test
	void startsThreeMastersWithAReplicaEachFailsOverAndRecoversAKilledMaster() {
		long started = System.nanoTime();
		try (RedisCluster cluster = RedisCluster.start()) {
			System.out.printf("cluster started in %d ms%n", (System.nanoTime() - started) / 1_000_000);
			assertThat(cluster.nodes()).hasSize(6);
			assertThat(cluster.masters()).hasSize(3);
			assertThat(cluster.replicas()).hasSize(3);
			for (RedisServerProcess node : cluster.nodes()) {
				assertThat((String) node.command("CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_known_nodes:6");
			}
			// Keys land on the master that serves their slot, and the others redirect.
			Set<RedisServerProcess> owners = new HashSet<>();
			for (int i = 0; i < 30; i++) {
				String key = "key-" + i;
				RedisServerProcess owner = cluster.masterFor(key);
				owners.add(owner);
				owner.command("SET", key, "v");
				for (RedisServerProcess other : cluster.masters()) {
					if (other != owner) {
						assertThatThrownBy(() -> other.command("GET", key)).hasMessageStartingWith("MOVED");
					}
				}
			}
			assertThat(owners).hasSize(3);

			RedisServerProcess master = cluster.masterFor("key-0");
			RedisServerProcess replica = cluster.replicaOf(master);
			RedisServerProcess promoted = cluster.failover(master);
			assertThat(promoted).isSameAs(replica);
			assertThat(cluster.masterFor("key-0")).isSameAs(promoted);
			assertThat(promoted.command("GET", "key-0")).as("a coordinated failover loses nothing").isEqualTo("v");
			assertThat((String) master.command("INFO", "replication")).contains("role:slave");

			long killedAt = System.nanoTime();
			RedisServerProcess afterKill = cluster.killMaster(promoted);
			System.out.printf("kill -9 of a master: new master serving after %d ms%n", (System.nanoTime() - killedAt) / 1_000_000);
			assertThat(afterKill).isSameAs(master);
			assertThat(cluster.masterFor("key-0")).isSameAs(master);
			assertThat(promoted.isAlive()).isFalse();

			cluster.restart(promoted);
			assertThat(cluster.masters()).hasSize(3).doesNotContain(promoted);
			assertThat(cluster.replicaOf(master)).isSameAs(promoted);
		}
	}

	@Test
	void closingStopsEveryNode() {
		List<RedisServerProcess> nodes;
		try (RedisCluster cluster = RedisCluster.start(3, 0)) {
			nodes = cluster.nodes();
			assertThat(nodes).hasSize(3).allMatch(RedisServerProcess::isAlive);
			assertThat(cluster.nodeAddresses()).hasSize(3).allMatch((address) -> address.startsWith("127.0.0.1:"));
		}
		assertThat(nodes).noneMatch(RedisServerProcess::isAlive);
	}

}

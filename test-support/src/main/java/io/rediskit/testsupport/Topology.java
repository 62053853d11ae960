package io.rediskit.testsupport;

import java.util.Locale;

/**
 * The Redis deployments every contract suite runs on ({@link TopologyContract} runs a suite once per constant).
 * A new constant, with its start and connection in {@link RedisTopology}, adds a topology to every suite.
 */
public enum Topology {

	/** One {@code redis-server}. */
	STANDALONE,

	/** Redis Cluster: 3 masters and 3 replicas, reached through {@code RedisClusterConfiguration}. */
	CLUSTER,

	/** One master, one replica and 3 Sentinels, reached through {@code RedisSentinelConfiguration}. */
	SENTINEL;

	/** @return the name test reports show, such as {@code cluster} */
	@Override
	public String toString() {
		return name().toLowerCase(Locale.ROOT);
	}

}

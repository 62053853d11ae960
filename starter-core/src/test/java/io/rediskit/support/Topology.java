package io.rediskit.support;

/** The Redis deployments every contract suite runs on. */
public enum Topology {

	/** One {@code redis-server}. */
	STANDALONE,

	/** Redis Cluster: 3 masters and 3 replicas, reached through {@code RedisClusterConfiguration}. */
	CLUSTER,

	/** One master, one replica and 3 Sentinels, reached through {@code RedisSentinelConfiguration}. */
	SENTINEL

}

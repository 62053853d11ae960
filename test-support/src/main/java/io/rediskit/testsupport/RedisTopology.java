package io.rediskit.testsupport;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A running Redis deployment of one {@link Topology} and the Lettuce connection factory an application would
 * configure for it ({@link RedisStandaloneConfiguration}, {@link RedisClusterConfiguration} with adaptive and
 * periodic topology refresh as {@code spring.data.redis.lettuce.cluster.refresh.*} sets it, or
 * {@link RedisSentinelConfiguration}). It knows nothing of redis-kit's own classes (this module comes before
 * them in the build): what the starter builds from the factory, such as its script executor, the tests of that
 * module build themselves.
 * <p>
 * Contract suites share one instance per topology and test JVM ({@link TopologyContract},
 * {@link SharedTopologies}): they name their keys with {@link #unique(String)} and never flush. A test that
 * injects faults starts a private one with {@link #start(Topology)} and closes it.
 * <p>
 * Adding a topology is one change here and in {@link Topology}: a constant, how it starts
 * ({@link #start(Topology, Duration)}), how an application connects to it ({@link #newConnectionFactory()}) and
 * where its writes go ({@link #masters()}); every contract suite then runs on it.
 */
public final class RedisTopology implements AutoCloseable {

	/** How often, besides adaptively, the cluster client refreshes its view of the slots. */
	public static final Duration CLUSTER_REFRESH_PERIOD = Duration.ofSeconds(2);

	private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	private static final AtomicLong sequence = new AtomicLong();

	private final Topology topology;

	private final @Nullable RedisServerProcess standalone;

	private final @Nullable RedisCluster cluster;

	private final @Nullable RedisSentinelGroup sentinel;

	private final Duration commandTimeout;

	private final LettuceConnectionFactory connections;

	private RedisTopology(Topology topology, @Nullable RedisServerProcess standalone, @Nullable RedisCluster cluster,
			@Nullable RedisSentinelGroup sentinel, Duration commandTimeout) {
		this.topology = topology;
		this.standalone = standalone;
		this.cluster = cluster;
		this.sentinel = sentinel;
		this.commandTimeout = commandTimeout;
		this.connections = newConnectionFactory();
	}

	/**
	 * Starts a deployment and connects to it, with a 5 s command timeout.
	 * @param topology which deployment
	 * @return the running deployment; close it when done
	 */
	public static RedisTopology start(Topology topology) {
		return start(topology, Duration.ofSeconds(5));
	}

	/**
	 * Starts a deployment and connects to it.
	 * @param topology which deployment
	 * @param commandTimeout the client's command timeout
	 * @return the running deployment; close it when done
	 */
	public static RedisTopology start(Topology topology, Duration commandTimeout) {
		return switch (topology) {
			case STANDALONE -> new RedisTopology(topology, RedisServerProcess.start(), null, null, commandTimeout);
			case CLUSTER -> new RedisTopology(topology, null, RedisCluster.start(), null, commandTimeout);
			case SENTINEL -> new RedisTopology(topology, null, null, RedisSentinelGroup.start(), commandTimeout);
		};
	}

	/**
	 * A new, started connection factory configured as an application would configure it for this deployment.
	 * @return the factory; destroy it when done
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(this.commandTimeout);
		LettuceConnectionFactory factory = switch (this.topology) {
			case STANDALONE -> new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(standalone().host(), standalone().port()), client.build());
			case CLUSTER -> new LettuceConnectionFactory(new RedisClusterConfiguration(cluster().nodeAddresses()),
					client.clientOptions(ClusterClientOptions.builder()
						.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
							.enableAllAdaptiveRefreshTriggers()
							.enablePeriodicRefresh(CLUSTER_REFRESH_PERIOD)
							.build())
						.build())
						.build());
			case SENTINEL -> {
				RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
				configuration.master(RedisSentinelGroup.MASTER_NAME);
				for (RedisServerProcess node : sentinel().sentinels()) {
					configuration.sentinel(node.host(), node.port());
				}
				yield new LettuceConnectionFactory(configuration, client.build());
			}
		};
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** @return the deployment's kind */
	public Topology topology() {
		return this.topology;
	}

	/** @return the connection factory the code under test uses */
	public LettuceConnectionFactory connections() {
		return this.connections;
	}

	/**
	 * A name no other test in this or an earlier run uses, so that suites sharing a deployment never see each
	 * other's keys.
	 * @param base what the name is for, such as {@code orders}
	 * @return {@code base} followed by a run id and a sequence number
	 */
	public String unique(String base) {
		return uniqueName(base);
	}

	static String uniqueName(String base) {
		return base + "-" + RUN + "-" + sequence.incrementAndGet();
	}

	/** @return the servers that accept writes now: the server, the cluster's masters or the Sentinel master */
	public List<RedisServerProcess> masters() {
		return switch (this.topology) {
			case STANDALONE -> List.of(standalone());
			case CLUSTER -> cluster().masters();
			case SENTINEL -> List.of(sentinel().master());
		};
	}

	/**
	 * @param key a key
	 * @return the server that holds it now, to inspect it without the client under test
	 */
	public RedisServerProcess masterFor(String key) {
		return (this.topology == Topology.CLUSTER) ? cluster().masterFor(key) : masters().get(0);
	}

	/**
	 * @param key a key
	 * @return whether it exists, asked of the server that holds it
	 */
	public boolean exists(String key) {
		return Long.valueOf(1).equals(masterFor(key).command("EXISTS", key));
	}

	/**
	 * Counts the keys matching a pattern on each server that accepts writes, with {@code SCAN}.
	 * @param pattern a {@code SCAN MATCH} pattern
	 * @return the count per master
	 */
	public Map<RedisServerProcess, Long> keysPerMaster(String pattern) {
		Map<RedisServerProcess, Long> counts = new LinkedHashMap<>();
		for (RedisServerProcess master : masters()) {
			long count = 0;
			String cursor = "0";
			do {
				List<?> reply = (List<?>) master.command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
				cursor = (String) reply.get(0);
				count += ((List<?>) reply.get(1)).size();
			}
			while (!"0".equals(cursor));
			counts.put(master, count);
		}
		return counts;
	}

	/** @return the single server of a standalone deployment */
	public RedisServerProcess standalone() {
		return require(this.standalone, Topology.STANDALONE);
	}

	/** @return the cluster of a cluster deployment */
	public RedisCluster cluster() {
		return require(this.cluster, Topology.CLUSTER);
	}

	/** @return the group of a Sentinel deployment */
	public RedisSentinelGroup sentinel() {
		return require(this.sentinel, Topology.SENTINEL);
	}

	/** Closes the connection factory and stops every server. */
	@Override
	public void close() {
		this.connections.destroy();
		if (this.standalone != null) {
			this.standalone.close();
		}
		if (this.cluster != null) {
			this.cluster.close();
		}
		if (this.sentinel != null) {
			this.sentinel.close();
		}
	}

	@Override
	public String toString() {
		return this.topology.toString();
	}

	private <T> T require(@Nullable T part, Topology expected) {
		if (part == null) {
			throw new IllegalStateException("This is a " + this.topology + " deployment, not " + expected);
		}
		return part;
	}

}

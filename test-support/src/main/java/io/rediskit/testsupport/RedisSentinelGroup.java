package io.rediskit.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A Sentinel group on loopback: one master, its replicas and three Sentinels (the engine's own, such as
 * {@code valkey-sentinel}, else {@code redis-server --sentinel}) monitoring it as {@value #MASTER_NAME} with a
 * quorum of 2, all started in parallel from the same engine. Sentinels declare the master down after
 * {@value #DOWN_AFTER_MILLIS} ms and time failovers out after {@value #FAILOVER_TIMEOUT_MILLIS} ms, so a failover
 * takes seconds. {@link #start()} returns once every
 * Sentinel knows the other two and the replica, and the replica is in sync.
 * <p>
 * Fault injection: {@link #failover()} asks a Sentinel for a failover ({@code SENTINEL FAILOVER}),
 * {@link #killMaster()} kills the master with {@code SIGKILL}; both wait until every Sentinel names the new
 * master and it accepts writes. Any node can be paused, killed and restarted ({@link RedisServerProcess}).
 * Closing stops every process; a shutdown hook kills whatever is left when the JVM exits.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	/** The name the Sentinels monitor the master under. */
	public static final String MASTER_NAME = "mymaster";

	/**
	 * Milliseconds without an answer after which a Sentinel considers the master down. Not 1000: when a failover
	 * after a kill ends, each Sentinel resets its master record and starts the down-after clock at once, but
	 * reconnects to the new master only once per ping period (1000 ms) since its last attempt to reach the dead
	 * one; with a down-after of 1000 ms the first PONG could lose that race, and all three Sentinels declared the
	 * new master down and failed over a second time (seen in 2 of 25 runs on a loaded machine).
	 */
	public static final int DOWN_AFTER_MILLIS = 2000;

	/** Sentinel's failover timeout, in milliseconds. */
	public static final int FAILOVER_TIMEOUT_MILLIS = 5000;

	private static final int QUORUM = 2;

	private final List<RedisServerProcess> dataNodes;

	private final List<RedisServerProcess> sentinels;

	private final Path configDirectory;

	private RedisSentinelGroup(List<RedisServerProcess> dataNodes, List<RedisServerProcess> sentinels,
			Path configDirectory) {
		this.dataNodes = List.copyOf(dataNodes);
		this.sentinels = List.copyOf(sentinels);
		this.configDirectory = configDirectory;
	}

	/** @return a started group of one master, one replica and three Sentinels */
	public static RedisSentinelGroup start() {
		return start(1);
	}

	/**
	 * Starts a group.
	 * @param replicas how many replicas the master gets
	 * @param extraArguments further {@code redis-server} arguments for the master and replicas
	 * @return the started, settled group
	 */
	public static RedisSentinelGroup start(int replicas, String... extraArguments) {
		List<String> common = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
		common.addAll(List.of(extraArguments));
		RedisServerProcess master = RedisServerProcess.start(common.toArray(String[]::new));
		List<String> replicaArguments = new ArrayList<>(common);
		replicaArguments.addAll(List.of("--replicaof", master.host(), Integer.toString(master.port())));
		Path configDirectory;
		try {
			configDirectory = Files.createTempDirectory("redis-kit-sentinels");
		}
		catch (IOException ex) {
			master.close();
			throw new IllegalStateException("Cannot create a directory for Sentinel configurations", ex);
		}
		List<RedisServerProcess> replicaNodes = new ArrayList<>();
		List<RedisServerProcess> sentinelNodes = new ArrayList<>();
		try {
			replicaNodes.addAll(RedisCluster.startInParallel(replicas,
					() -> RedisServerProcess.start(replicaArguments.toArray(String[]::new))));
			int[] next = { 0 };
			sentinelNodes.addAll(RedisCluster.startInParallel(3, () -> {
				Path config;
				synchronized (next) {
					config = configDirectory.resolve("sentinel-" + next[0]++ + ".conf");
				}
				writeConfig(config, master);
				return RedisServerProcess.startSentinel(config);
			}));
		}
		catch (RuntimeException ex) {
			replicaNodes.forEach(RedisServerProcess::close);
			master.close();
			throw ex;
		}
		List<RedisServerProcess> data = new ArrayList<>();
		data.add(master);
		data.addAll(replicaNodes);
		RedisSentinelGroup group = new RedisSentinelGroup(data, sentinelNodes, configDirectory);
		try {
			group.awaitHealthy();
			return group;
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	private static void writeConfig(Path config, RedisServerProcess master) {
		String text = "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " " + QUORUM + "\n"
				+ "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS + "\n"
				+ "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS + "\n"
				+ "sentinel parallel-syncs " + MASTER_NAME + " 1\n";
		try {
			Files.writeString(config, text);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot write " + config, ex);
		}
	}

	/** @return the Sentinels */
	public List<RedisServerProcess> sentinels() {
		return this.sentinels;
	}

	/** @return the master and replicas, in start order, whatever their role now */
	public List<RedisServerProcess> dataNodes() {
		return this.dataNodes;
	}

	/** @return {@code host:port} of every Sentinel, as {@code spring.data.redis.sentinel.nodes} takes them */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** @return the master the first answering Sentinel names now */
	public RedisServerProcess master() {
		for (RedisServerProcess sentinel : this.sentinels) {
			if (sentinel.isAlive()) {
				try {
					return nodeOnPort(masterPort(sentinel));
				}
				catch (IllegalStateException ex) {
					// This Sentinel does not answer: ask the next.
				}
			}
		}
		throw new IllegalStateException("No Sentinel answers");
	}

	/** @return the live data nodes other than the master */
	public List<RedisServerProcess> replicas() {
		RedisServerProcess master = master();
		return this.dataNodes.stream().filter((node) -> node != master && node.isAlive()).toList();
	}

	/**
	 * Asks a Sentinel to fail over ({@code SENTINEL FAILOVER}, which promotes a replica without waiting for the
	 * master to fail), then waits until every Sentinel names the new master and it accepts writes.
	 * @return the new master
	 */
	public RedisServerProcess failover() {
		RedisServerProcess former = master();
		RedisCluster.await("a Sentinel accepting the failover", () -> {
			try {
				this.sentinels.get(0).command("SENTINEL", "FAILOVER", MASTER_NAME);
				return true;
			}
			catch (IllegalStateException ex) {
				// INPROG (a failover already running) or NOGOODSLAVE (replica still syncing): ask again.
				return false;
			}
		});
		return awaitNewMaster(former);
	}

	/**
	 * Kills the master with {@code SIGKILL} and waits until the Sentinels have promoted a replica and it accepts
	 * writes. The killed node stays down until {@link RedisServerProcess#restart()}; the Sentinels then make it a
	 * replica of the new master.
	 * @return the new master
	 */
	public RedisServerProcess killMaster() {
		RedisServerProcess former = master();
		former.kill();
		return awaitNewMaster(former);
	}

	/**
	 * Restarts a node that was killed and waits until the group is healthy again.
	 * @param node the node
	 */
	public void restart(RedisServerProcess node) {
		node.restart();
		awaitHealthy();
	}

	/**
	 * Waits until every Sentinel names the same master, knows the other Sentinels and every live replica, the
	 * master reports {@code role:master} and each live replica's link to it is up.
	 */
	public void awaitHealthy() {
		RedisCluster.await("a settled Sentinel group", () -> {
			Integer agreed = null;
			for (RedisServerProcess sentinel : this.sentinels) {
				if (!sentinel.isAlive()) {
					continue;
				}
				int port = masterPort(sentinel);
				if (agreed != null && agreed != port) {
					return false;
				}
				agreed = port;
				List<?> fields = (List<?>) sentinel.command("SENTINEL", "MASTER", MASTER_NAME);
				String flags = field(fields, "flags");
				if (!"master".equals(flags) || Integer.parseInt(field(fields, "num-other-sentinels")) < this.sentinels.size() - 1) {
					return false;
				}
				long liveReplicas = this.dataNodes.stream().filter(RedisServerProcess::isAlive).count() - 1;
				List<?> replicas = (List<?>) sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME);
				long healthyReplicas = replicas.stream()
					.filter((replica) -> Objects.equals(field((List<?>) replica, "flags"), "slave")
							&& Objects.equals(field((List<?>) replica, "master-link-status"), "ok"))
					.count();
				if (healthyReplicas < liveReplicas) {
					return false;
				}
			}
			RedisServerProcess master = nodeOnPort(Objects.requireNonNull(agreed));
			if (!((String) master.command("INFO", "replication")).contains("role:master")) {
				return false;
			}
			for (RedisServerProcess node : this.dataNodes) {
				if (node != master && node.isAlive()
						&& !((String) node.command("INFO", "replication")).contains("master_link_status:up")) {
					return false;
				}
			}
			return true;
		});
	}

	/** @return every node's log, data nodes first then Sentinels, each under a header line naming it */
	public String logs() {
		StringBuilder all = new StringBuilder();
		this.dataNodes.forEach((node) -> all.append("=== ").append(node).append('\n').append(node.log()));
		this.sentinels.forEach((node) -> all.append("=== Sentinel ").append(node).append('\n').append(node.log()));
		return all.toString();
	}

	/** Deletes every key on the master (replicas follow): only ever in this group, which this class started. */
	public void flushAll() {
		master().flushAll();
	}

	/** Stops every process. */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServerProcess::close);
		this.dataNodes.forEach(RedisServerProcess::close);
		try (var paths = Files.walk(this.configDirectory)) {
			paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A temporary directory left behind is harmless.
		}
	}

	@Override
	public String toString() {
		return "Redis Sentinel group " + MASTER_NAME + " with Sentinels on " + sentinelAddresses();
	}

	/**
	 * Waits until every Sentinel names a master other than {@code former} and it accepts writes, after a fault
	 * the test caused itself (such as a kill while the replica was paused).
	 * @param former the master being replaced
	 * @return the new master
	 */
	public RedisServerProcess awaitNewMaster(RedisServerProcess former) {
		RedisCluster.await("a new master in place of " + former, () -> {
			for (RedisServerProcess sentinel : this.sentinels) {
				if (sentinel.isAlive() && masterPort(sentinel) == former.port()) {
					return false;
				}
			}
			RedisServerProcess master = master();
			master.command("SET", "rk:test:failover-probe", "1", "PX", "1000");
			return true;
		});
		return master();
	}

	private static int masterPort(RedisServerProcess sentinel) {
		List<?> address = (List<?>) sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
		return Integer.parseInt((String) address.get(1));
	}

	private RedisServerProcess nodeOnPort(int port) {
		return this.dataNodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No data node of " + this + " listens on " + port));
	}

	private static String field(List<?> fields, String name) {
		for (int i = 0; i + 1 < fields.size(); i += 2) {
			if (name.equals(fields.get(i))) {
				return (String) fields.get(i + 1);
			}
		}
		return "";
	}

}

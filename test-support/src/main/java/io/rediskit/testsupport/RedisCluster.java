package io.rediskit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster on loopback: masters that share the 16384 slots evenly and replicas of each, all started from
 * the same {@code redis-server} binary, in parallel, with a short {@code cluster-node-timeout}
 * ({@value #NODE_TIMEOUT_MILLIS} ms) so that a failover takes a few seconds. Slots are assigned with
 * {@code CLUSTER ADDSLOTSRANGE}, nodes introduced with {@code CLUSTER MEET} and replicas attached with
 * {@code CLUSTER REPLICATE}; {@link #start()} returns once every node reports {@code cluster_state:ok}, all
 * agree on which node serves which slots, and every replica is in sync.
 * <p>
 * Each node listens on a free port and runs its cluster bus on another free port ({@code --cluster-port}), so
 * no port is derived from another. Fault injection: any {@link #nodes() node} can be paused, killed and
 * restarted ({@link RedisServerProcess}); {@link #failover(RedisServerProcess)} promotes a master's replica
 * with {@code CLUSTER FAILOVER} and {@link #killMaster(RedisServerProcess)} kills the master with
 * {@code SIGKILL} and waits for the cluster to promote its replica. Closing stops every node; a shutdown hook
 * kills whatever is left when the JVM exits.
 */
public final class RedisCluster implements AutoCloseable {

	/** Milliseconds after which an unreachable node is considered failing. */
	public static final int NODE_TIMEOUT_MILLIS = 1000;

	private static final int SLOTS = 16384;

	private static final String BUS_PORT_OPTION = "--cluster-port";

	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

	private final List<RedisServerProcess> nodes;

	private final Map<RedisServerProcess, String> nodeIds = new java.util.LinkedHashMap<>();

	private RedisCluster(List<RedisServerProcess> nodes) {
		this.nodes = List.copyOf(nodes);
	}

	/** @return a started cluster of 3 masters with one replica each */
	public static RedisCluster start() {
		return start(3, 1);
	}

	/**
	 * Starts a cluster.
	 * @param masters how many masters, at least 1
	 * @param replicasPerMaster how many replicas each master gets
	 * @param extraArguments further {@code redis-server} arguments for every node
	 * @return the started, settled cluster
	 */
	public static RedisCluster start(int masters, int replicasPerMaster, String... extraArguments) {
		if (masters < 1 || replicasPerMaster < 0) {
			throw new IllegalArgumentException("Need at least one master and no negative replica count");
		}
		try {
			return startOnce(masters, replicasPerMaster, extraArguments);
		}
		catch (SettleTimeoutException ex) {
			// Seen once in a CI run on Valkey 8.0.1 (2026-11-29): a fresh cluster of six that had not settled after a
			// minute, where the next one formed in two seconds. A new cluster, on new ports, is tried once more.
			System.err.println("A new cluster did not settle (" + ex.getMessage() + "); forming another once more");
			return startOnce(masters, replicasPerMaster, extraArguments);
		}
	}

	private static RedisCluster startOnce(int masters, int replicasPerMaster, String... extraArguments) {
		// The bus port on its own free port (not port + 10000) needs the cluster-port directive of Redis 7.0.
		RedisServerBinary.assumeAtLeast(7, 0, "Redis Cluster with its bus on a free port (cluster-port)");
		int count = masters * (1 + replicasPerMaster);
		// A fresh bus port for every attempt: one taken between probing and binding fails the attempt.
		List<RedisServerProcess> started = startInParallel(count, () -> RedisServerProcess.startWith(() -> {
			List<String> arguments = new ArrayList<>(List.of("--cluster-enabled", "yes", BUS_PORT_OPTION,
					Integer.toString(RedisServerProcess.freeLoopbackPort()), "--cluster-node-timeout",
					Integer.toString(NODE_TIMEOUT_MILLIS), "--cluster-replica-validity-factor", "0",
					"--cluster-require-full-coverage", "yes", "--repl-diskless-sync-delay", "0"));
			arguments.addAll(List.of(extraArguments));
			return arguments.toArray(String[]::new);
		}));
		RedisCluster cluster = new RedisCluster(started);
		try {
			cluster.form(masters, replicasPerMaster);
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	static List<RedisServerProcess> startInParallel(int count, Supplier<RedisServerProcess> starter) {
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			List<CompletableFuture<RedisServerProcess>> futures = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				futures.add(CompletableFuture.supplyAsync(starter, executor));
			}
			List<RedisServerProcess> started = new ArrayList<>();
			RuntimeException failure = null;
			for (CompletableFuture<RedisServerProcess> future : futures) {
				try {
					started.add(future.join());
				}
				catch (RuntimeException ex) {
					failure = ex;
				}
			}
			if (failure != null) {
				started.forEach(RedisServerProcess::close);
				throw failure;
			}
			return started;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void form(int masters, int replicasPerMaster) {
		for (RedisServerProcess node : this.nodes) {
			this.nodeIds.put(node, (String) node.command("CLUSTER", "MYID"));
		}
		int perMaster = SLOTS / masters;
		for (int m = 0; m < masters; m++) {
			int first = m * perMaster;
			int last = (m == masters - 1) ? SLOTS - 1 : first + perMaster - 1;
			this.nodes.get(m).command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
		}
		RedisServerProcess seed = this.nodes.get(0);
		for (RedisServerProcess node : this.nodes.subList(1, this.nodes.size())) {
			// The bus port is not the default port + 10000, which could exceed 65535: MEET names it.
			seed.command("CLUSTER", "MEET", node.host(), Integer.toString(node.port()), busPort(node));
		}
		await("every node knows every other", () -> this.nodes.stream()
			.allMatch((node) -> knownNodeIds(node).containsAll(this.nodeIds.values())));
		for (int r = 0; r < masters * replicasPerMaster; r++) {
			replicate(this.nodes.get(masters + r), this.nodeIds.get(this.nodes.get(r % masters)));
		}
		awaitHealthy();
	}

	/*
	 * A node must be empty to become a replica. A fresh one is, unless a client of another test JVM, reconnecting to a
	 * server that was stopped and whose port this node now has, wrote to it first (seen once in 6 runs of the lock
	 * suites beside the fault tests, two test JVMs on one machine): such keys are not this cluster's, so they go,
	 * and the replication is tried again, three times at most, the last failure saying what the node held.
	 */
	private static void replicate(RedisServerProcess replica, String masterId) {
		for (int attempt = 1;; attempt++) {
			try {
				replica.command("CLUSTER", "REPLICATE", masterId);
				return;
			}
			catch (IllegalStateException ex) {
				if (attempt == 3 || ex.getMessage() == null || !ex.getMessage().contains("must be empty")) {
					throw new IllegalStateException(ex.getMessage() + " (the node on port " + replica.port() + " held "
							+ replica.command("DBSIZE") + " keys; " + clusterInfo(replica, "cluster_slots_assigned")
							+ " slots assigned in its view)", ex);
				}
				replica.command("FLUSHALL");
			}
		}
	}

	private static String clusterInfo(RedisServerProcess node, String field) {
		String info = String.valueOf(node.command("CLUSTER", "INFO"));
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1).strip();
			}
		}
		return "?";
	}

	/** @return every node, masters first in start order, whatever their role now */
	public List<RedisServerProcess> nodes() {
		return this.nodes;
	}

	/** @return the nodes that serve slots now, as the first live node reports it */
	public List<RedisServerProcess> masters() {
		Set<String> masterIds = new HashSet<>(slotOwners(anyLiveNode()).values());
		return this.nodes.stream().filter((node) -> masterIds.contains(this.nodeIds.get(node))).toList();
	}

	/** @return the live nodes that serve no slots */
	public List<RedisServerProcess> replicas() {
		List<RedisServerProcess> masters = masters();
		return this.nodes.stream().filter((node) -> node.isAlive() && !masters.contains(node)).toList();
	}

	/** @return {@code host:port} of every node, as {@code spring.data.redis.cluster.nodes} takes them */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/**
	 * @param node a node of this cluster
	 * @return its cluster node id
	 */
	public String nodeId(RedisServerProcess node) {
		String id = this.nodeIds.get(node);
		if (id == null) {
			throw new IllegalArgumentException(node + " is not a node of this cluster");
		}
		return id;
	}

	/**
	 * @param key a key
	 * @return the master that serves the key's slot now
	 */
	public RedisServerProcess masterFor(String key) {
		RedisServerProcess live = anyLiveNode();
		long slot = (Long) live.command("CLUSTER", "KEYSLOT", key);
		String owner = slotOwners(live).floorEntry((int) slot).getValue();
		return byId(owner);
	}

	/**
	 * @param master a master
	 * @return its first live replica
	 */
	public RedisServerProcess replicaOf(RedisServerProcess master) {
		String masterId = nodeId(master);
		for (RedisServerProcess node : this.nodes) {
			if (node.isAlive() && node != master && masterId.equals(masterIdOf(node))) {
				return node;
			}
		}
		throw new IllegalStateException(master + " has no live replica");
	}

	/**
	 * Promotes the master's replica with {@code CLUSTER FAILOVER} (a coordinated failover: no acknowledged write
	 * is lost) and waits until every live node agrees on the new master and reports {@code cluster_state:ok}.
	 * @param master the master to demote
	 * @return the new master
	 */
	public RedisServerProcess failover(RedisServerProcess master) {
		RedisServerProcess replica = replicaOf(master);
		replica.command("CLUSTER", "FAILOVER");
		awaitPromoted(replica, master);
		return replica;
	}

	/**
	 * Kills the master with {@code SIGKILL}, waits until the cluster has promoted its replica and serves every
	 * slot again. The killed node stays down until {@link RedisServerProcess#restart()}, after which it rejoins
	 * as a replica.
	 * @param master the master to kill
	 * @return the new master
	 */
	public RedisServerProcess killMaster(RedisServerProcess master) {
		RedisServerProcess replica = replicaOf(master);
		master.kill();
		awaitPromoted(replica, master);
		return replica;
	}

	/**
	 * Restarts a node that was killed and waits until it has rejoined and the cluster is healthy.
	 * @param node the node
	 */
	public void restart(RedisServerProcess node) {
		node.restart();
		awaitHealthy();
	}

	/**
	 * Waits until every live node reports {@code cluster_state:ok}, all agree on which node serves each slot and
	 * every live replica's link to its master is up.
	 */
	public void awaitHealthy() {
		// What the last look found unsettled, for the message of a timeout.
		String[] unsettled = { "nothing looked at yet" };
		try {
			await("a settled cluster", () -> {
				List<RedisServerProcess> live = this.nodes.stream().filter(RedisServerProcess::isAlive).toList();
				Set<TreeMap<Integer, String>> views = new HashSet<>();
				Set<TreeMap<String, String>> replicaViews = new HashSet<>();
				for (RedisServerProcess node : live) {
					String info = (String) node.command("CLUSTER", "INFO");
					if (!info.contains("cluster_state:ok")) {
						unsettled[0] = node + " not cluster_state:ok";
						return false;
					}
					views.add(slotOwners(node));
					replicaViews.add(replicasToMasters(node));
				}
				if (views.size() != 1 || replicaViews.size() != 1) {
					unsettled[0] = "the nodes disagree: " + views.size() + " views of the slots' owners, "
							+ replicaViews.size() + " of the replicas' masters";
					return false;
				}
				Set<String> owners = new HashSet<>(views.iterator().next().values());
				for (RedisServerProcess node : live) {
					boolean master = owners.contains(this.nodeIds.get(node));
					String replication = (String) node.command("INFO", "replication");
					if (master != replication.contains("role:master")) {
						unsettled[0] = node + " is not the role the slots say (" + (master ? "master" : "replica") + ")";
						return false;
					}
					if (!master && !replication.contains("master_link_status:up")) {
						unsettled[0] = node + ": link to its master not up";
						return false;
					}
				}
				unsettled[0] = "a master of the slots is not running";
				return owners.stream().allMatch((id) -> byId(id).isAlive());
			});
		}
		catch (SettleTimeoutException ex) {
			throw new SettleTimeoutException(ex.getMessage() + "; last seen: " + unsettled[0], ex.getCause());
		}
	}

	/** Deletes every key on every live master: only ever on this cluster, which this class started. */
	public void flushAll() {
		for (RedisServerProcess master : masters()) {
			master.flushAll();
		}
	}

	/** Stops every node. */
	@Override
	public void close() {
		for (RedisServerProcess node : this.nodes) {
			node.close();
		}
	}

	@Override
	public String toString() {
		return "Redis Cluster on " + nodeAddresses();
	}

	/**
	 * Waits until the replica serves in place of its former master and the cluster is healthy, after a fault the
	 * test caused itself (such as a kill while the replica was paused).
	 * @param replica the replica expected to take over
	 * @param formerMaster the master it replaces
	 */
	public void awaitPromoted(RedisServerProcess replica, RedisServerProcess formerMaster) {
		await(replica + " promoted in place of " + formerMaster, () -> {
			String replication = (String) replica.command("INFO", "replication");
			return replication.contains("role:master");
		});
		awaitHealthy();
	}

	private static String busPort(RedisServerProcess node) {
		List<?> reply = (List<?>) node.command("CONFIG", "GET", "cluster-port");
		return (String) reply.get(1);
	}

	private RedisServerProcess anyLiveNode() {
		for (RedisServerProcess node : this.nodes) {
			if (node.isAlive()) {
				try {
					node.command("PING");
					return node;
				}
				catch (IllegalStateException ex) {
					// Paused or not answering: ask another node.
				}
			}
		}
		throw new IllegalStateException("No node of " + this + " answers");
	}

	private RedisServerProcess byId(String id) {
		for (Map.Entry<RedisServerProcess, String> entry : this.nodeIds.entrySet()) {
			if (entry.getValue().equals(id)) {
				return entry.getKey();
			}
		}
		throw new IllegalStateException("No node has id " + id);
	}

	private static Set<String> knownNodeIds(RedisServerProcess node) {
		Set<String> ids = new TreeSet<>();
		for (String line : ((String) node.command("CLUSTER", "NODES")).split("\n")) {
			if (!line.isBlank()) {
				ids.add(line.split(" ")[0]);
			}
		}
		return ids;
	}

	private @Nullable String masterIdOf(RedisServerProcess node) {
		for (String line : ((String) anyLiveNode().command("CLUSTER", "NODES")).split("\n")) {
			String[] fields = line.split(" ");
			if (fields[0].equals(this.nodeIds.get(node))) {
				return fields[3].equals("-") ? null : fields[3];
			}
		}
		return null;
	}

	/** Each healthy replica's id mapped to its master's id, as the node sees it. */
	private static TreeMap<String, String> replicasToMasters(RedisServerProcess node) {
		TreeMap<String, String> replicas = new TreeMap<>();
		for (String line : ((String) node.command("CLUSTER", "NODES")).split("\n")) {
			String[] fields = line.split(" ");
			if (fields.length >= 8 && !fields[2].contains("fail") && !fields[3].equals("-")) {
				replicas.put(fields[0], fields[3]);
			}
		}
		return replicas;
	}

	/** The first slot of each range mapped to the id of the master serving it, as the node sees it. */
	private static TreeMap<Integer, String> slotOwners(RedisServerProcess node) {
		TreeMap<Integer, String> owners = new TreeMap<>();
		for (String line : ((String) node.command("CLUSTER", "NODES")).split("\n")) {
			String[] fields = line.split(" ");
			if (fields.length < 9 || fields[2].contains("fail")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				if (fields[i].startsWith("[")) {
					continue; // a slot being migrated or imported
				}
				String range = fields[i];
				int dash = range.indexOf('-');
				owners.put(Integer.parseInt((dash < 0) ? range : range.substring(0, dash)), fields[0]);
			}
		}
		return owners;
	}

	static void await(String what, Supplier<Boolean> condition) {
		long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
		IllegalStateException lastFailure = null;
		while (System.nanoTime() < deadline) {
			try {
				if (condition.get()) {
					return;
				}
			}
			catch (IllegalStateException ex) {
				// A node that is starting, failing over or paused may refuse or not answer: ask again.
				lastFailure = ex;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
		throw new SettleTimeoutException("Timed out after " + SETTLE_TIMEOUT + " waiting for " + what, lastFailure);
	}

	/** A wait for the cluster that ran out of time. */
	static final class SettleTimeoutException extends IllegalStateException {

		SettleTimeoutException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}

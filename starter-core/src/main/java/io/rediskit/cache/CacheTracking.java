package io.rediskit.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.rediskit.support.Background;
import io.rediskit.support.BoundedStop;
import io.rediskit.support.KeyNaming;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Server-assisted client-side caching for the near caches of one manager: dedicated Lettuce connections, made
 * from the application's client, with {@code CLIENT TRACKING ON BCAST PREFIX <prefix>cache:} and the opening
 * brace of the hash tag, whose RESP3 {@code invalidate} push messages name every entry key that changed on the
 * server, whoever changed it (these caches, another application, {@code redis-cli}, an expiry, an eviction); a
 * {@code FLUSHDB} or {@code FLUSHALL} sends a null invalidation, which drops every entry. On standalone and
 * Sentinel that is one connection; on Redis Cluster, where a node sends invalidations only for the writes it runs,
 * one per master, each a node connection of one cluster connection of the application's
 * {@link RedisClusterClient}.
 * <p>
 * <b>Whether it can run</b> is decided once, when the connections are first made, never from an error's text: the
 * connection (on Cluster, the first master's) negotiated RESP3 ({@code HELLO 3} accepted: the client's protocol is
 * not pinned to RESP2 and the server is Redis 6 or later), and the server accepted {@code CLIENT TRACKING} (a
 * command error otherwise). While Redis cannot be reached the question stays open and is asked again every
 * heartbeat.
 * <p>
 * <b>Trust</b>, as with {@link CacheSignals}: the near caches answer only while an invalidation sent now would
 * reach this instance, from every node that runs writes. Each connection the driver makes is a new session, in
 * which nothing is tracked until {@code CLIENT TRACKING ON} was answered: a disconnect of any tracked connection
 * (the connection dropped, {@code CLIENT KILL}, a server restart, a Sentinel failover once Sentinel closes the
 * former master's connections) ends trust and starts a new {@link #epoch()} (entries stored before it are never
 * served again), and trust comes back once every tracked connection has tracking on in its current session, each
 * from the reply of {@code CLIENT TRACKING ON} sent on the reconnected connection, at once from the driver's
 * reconnect event and again every heartbeat until it is answered. A connection that stays up but carries nothing
 * (the server paused, a half-open link) is noticed by a command sent on it every heartbeat ({@code PING}; on Cluster
 * {@code CLUSTER INFO}): invalidations and replies share the connection, in order, so a reply proves that every
 * invalidation of a write the node ran before it has arrived. Two unanswered, or none answered for three
 * heartbeats when a read asks, end trust; the next reply on the same session restores that connection's part.
 * <p>
 * <b>Cluster topology.</b> The masters are the nodes of the client's view ({@code getPartitions()}) that are
 * masters and serve slots or are not failing. Each heartbeat's {@code CLUSTER INFO} reports the node's current
 * epoch and how many nodes it knows: a value above any seen before (a failover, a node added, a slot moved by
 * {@code SETSLOT}) ends trust and refreshes the client's view ({@code refreshPartitionsAsync}, as Lettuce's adaptive
 * refresh does), and so does a tracked connection's disconnect. Every heartbeat the tracked set follows the
 * view: a new master gets its connection and tracking, a node no longer master is dropped (tracking turned off on
 * its connection, which the cluster connection keeps while the node is in the view); trust comes back only when
 * the view was refreshed after the last change and every master of it has tracking on. A refreshed view can catch
 * the cluster halfway (a demoted master not yet known as a replica, still listed as a master without slots), and
 * the change's epoch is reported once: after a change the view is refreshed again every heartbeat until two
 * refreshes in a row agree, so the tracked set ends on the settled cluster (trust does not wait for it: tracking
 * a node that turns out not to be a master costs a connection, never a missed invalidation). A write that a new
 * master runs before any tracked node reports the change can be missed: the window is at most a heartbeat after
 * the change reached the tracked nodes (a coordinated failover reaches them at once).
 */
final class CacheTracking implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(CacheTracking.class);

	private static final Pattern RESP = Pattern.compile("\\bresp=(\\d)");

	private static final Pattern CURRENT_EPOCH = Pattern.compile("\\bcluster_current_epoch:(\\d+)");

	private static final Pattern KNOWN_NODES = Pattern.compile("\\bcluster_known_nodes:(\\d+)");

	/** The key of the one link on standalone and Sentinel; on Cluster links are keyed by node id. */
	private static final String SERVER = "server";

	/** Whether tracking runs here: open until the connection was first made. */
	enum Availability {

		UNKNOWN, AVAILABLE, UNAVAILABLE

	}

	/** A cache's near cache, told of its invalidations on the driver's thread: must not block. */
	interface Handler {

		/** @param id the entry's key as the cache names it, or {@code null} for every entry */
		void invalidated(@Nullable String id);

	}

	private final LettuceConnectionFactory connectionFactory;

	/**
	 * The prefix and area of every key, then the hash tag's opening brace: every entry key of every cache starts
	 * with it.
	 */
	private final String keyPrefix;

	private final Duration heartbeat;

	private final long staleAfterNanos;

	/** Runs the heartbeat: the application's, or the cache manager's own, closed by the manager. */
	private final Background background;

	private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

	private final List<Runnable> trustLost = new CopyOnWriteArrayList<>();

	private final ReentrantLock lifecycle = new ReentrantLock();

	private final PushListener pushes = this::onPush;

	/** The tracked connections: one on standalone and Sentinel, one per master on Cluster (by node id). */
	private final Map<String, Link> links = new ConcurrentHashMap<>();

	/** The links as the hot path reads them, replaced whenever a link is added or dropped. */
	private volatile Link[] linked = new Link[0];

	/** The masters whose node connection is being made (Cluster). */
	private final Set<String> joining = ConcurrentHashMap.newKeySet();

	private volatile @Nullable StatefulRedisClusterConnection<byte[], byte[]> cluster;

	private volatile @Nullable AbstractRedisClient client;

	private @Nullable RedisConnectionStateListener stateListener;

	private @Nullable ScheduledFuture<?> heartbeatTask;

	private volatile Availability availability = Availability.UNKNOWN;

	/** The highest current epoch and count of known nodes any master reported (Cluster); -1 before the first. */
	private final AtomicLong clusterEpoch = new AtomicLong(-1);

	private final AtomicLong knownNodes = new AtomicLong(-1);

	/** Changes of the cluster's configuration noticed, and how many of them a refreshed view has followed. */
	private final AtomicLong topologyChanges = new AtomicLong();

	private volatile long topologyFollowed;

	/** When the last change was noticed: the view is asked for a heartbeat later, once the cluster has settled. */
	private volatile long changeNoticedNanos = System.nanoTime();

	private final AtomicBoolean refreshing = new AtomicBoolean();

	/** The last refreshed view (its nodes, roles, failures and slots), and whether it differed from the one before. */
	private volatile String lastView = "";

	private volatile boolean settling;

	private volatile boolean trusted;

	private volatile long epoch;

	private volatile long trustLostNanos;

	/** Whether trust was ever lost: the first trust after starting is no resync. Guarded by this. */
	private boolean lostOnce;

	private volatile @Nullable Duration lastResync;

	private volatile boolean closed;

	CacheTracking(LettuceConnectionFactory connectionFactory, KeyNaming keyNaming, Duration heartbeat,
			Background background) {
		this.connectionFactory = connectionFactory;
		this.keyPrefix = keyNaming.prefix() + CacheParts.AREA + ":{";
		this.heartbeat = heartbeat;
		this.staleAfterNanos = heartbeat.toNanos() * 3;
		this.background = background;
	}

	/**
	 * Routes the invalidations of a cache's entries to its near cache, connecting first if need be (blocks up to
	 * the driver's timeouts). A connection that cannot be made now is tried again every heartbeat.
	 * @param cacheName the cache's name
	 * @param handler told of each invalidation of the cache's entries
	 */
	void watch(String cacheName, Handler handler) {
		this.handlers.put(cacheName, handler);
		if (this.availability != Availability.UNKNOWN) {
			return;
		}
		this.lifecycle.lock();
		try {
			if (this.closed) {
				return;
			}
			if (this.heartbeatTask == null) {
				this.heartbeatTask = this.background.scheduleAtFixedRate(this::beat, this.heartbeat, this.heartbeat);
			}
			connect();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot make the near caches' tracking connection yet; trying again in " + this.heartbeat, ex);
		}
		finally {
			this.lifecycle.unlock();
		}
	}

	/** @return whether tracking runs, does not, or is not decided yet (Redis not reached so far) */
	Availability availability() {
		return this.availability;
	}

	/** @param action run whenever trust ends, on the thread that noticed; must not block */
	void onTrustLost(Runnable action) {
		this.trustLost.add(action);
	}

	/** @return the current epoch, to take before a read whose value may be kept */
	long epoch() {
		return this.epoch;
	}

	/** @return how long the near caches were last bypassed, from the loss of trust to tracking on again */
	@Nullable Duration lastResync() {
		return this.lastResync;
	}

	/** @return whether an invalidation of a write made now, on any node, would reach this instance */
	boolean trusted() {
		if (!this.trusted) {
			return false;
		}
		long now = System.nanoTime();
		for (Link link : this.linked) {
			if (now - link.lastReplyNanos > this.staleAfterNanos) {
				link.answering = false;
				loseTrust("no reply came back on " + link + " for " + Duration.ofNanos(this.staleAfterNanos).toMillis()
						+ " ms");
				return false;
			}
		}
		return true;
	}

	// Under the lifecycle lock.
	private void connect() {
		if (this.availability != Availability.UNKNOWN || this.closed) {
			return;
		}
		AbstractRedisClient nativeClient = this.connectionFactory.getRequiredNativeClient();
		if (nativeClient instanceof RedisClusterClient clusterClient) {
			connectCluster(clusterClient);
			return;
		}
		StatefulRedisConnection<byte[], byte[]> tracker = ((RedisClient) nativeClient).connect(ByteArrayCodec.INSTANCE);
		if (!speaksResp3(tracker)) {
			tracker.closeAsync();
			return;
		}
		this.client = nativeClient;
		this.stateListener = new SessionEvents();
		nativeClient.addListener(this.stateListener);
		Link link = new Link(SERVER, tracker, false);
		try {
			link.enableNow();
		}
		catch (RedisCommandExecutionException ex) {
			unlink(link);
			tracker.closeAsync();
			decline("the server refused CLIENT TRACKING: " + ex.getMessage());
			return;
		}
		catch (RuntimeException ex) {
			// Connected but not answered (the server stopped answering): the next attempt starts afresh.
			unlink(link);
			tracker.closeAsync();
			throw ex;
		}
		available();
	}

	// Under the lifecycle lock.
	private void connectCluster(RedisClusterClient clusterClient) {
		StatefulRedisClusterConnection<byte[], byte[]> connection = clusterClient.connect(ByteArrayCodec.INSTANCE);
		Set<String> masters = masters(connection.getPartitions());
		try {
			if (masters.isEmpty()) {
				throw new IllegalStateException("the cluster's view has no master");
			}
			if (!speaksResp3(connection.getConnection(masters.iterator().next()))) {
				connection.closeAsync();
				return;
			}
			this.cluster = connection;
			this.client = clusterClient;
			this.stateListener = new SessionEvents();
			clusterClient.addListener(this.stateListener);
			for (String master : masters) {
				Link link = new Link(master, connection.getConnection(master), true);
				link.enableNow();
				// What the masters know now: a change from here on shows in a heartbeat's CLUSTER INFO.
				clusterInfo(link, link.connection.sync().clusterInfo());
			}
		}
		catch (RedisCommandExecutionException ex) {
			dropCluster();
			decline("a master refused CLIENT TRACKING: " + ex.getMessage());
			return;
		}
		catch (RuntimeException ex) {
			dropCluster();
			throw ex;
		}
		// The client's view may be older than what the masters just said (a failover since it was loaded): trust
		// waits for a view asked for after it.
		this.changeNoticedNanos = System.nanoTime();
		this.topologyChanges.incrementAndGet();
		available();
	}

	/** @return completed once the cluster connection is closed */
	private CompletableFuture<Void> dropCluster() {
		this.links.values().forEach(this::unlink);
		if (this.client != null && this.stateListener != null) {
			this.client.removeListener(this.stateListener);
		}
		this.client = null;
		this.stateListener = null;
		CompletableFuture<Void> closed = CompletableFuture.completedFuture(null);
		if (this.cluster != null) {
			closed = this.cluster.closeAsync();
			this.cluster = null;
		}
		return closed;
	}

	private void available() {
		this.availability = Availability.AVAILABLE;
		logger.info("Near caches invalidated by server-assisted tracking (CLIENT TRACKING BCAST PREFIX "
				+ this.keyPrefix + ((this.cluster != null) ? ", on each of " + this.links.size() + " masters)" : ")"));
		regain();
	}

	/**
	 * Whether the handshake agreed on RESP3, as the server sees the connection: the {@code resp} field of
	 * {@code CLIENT INFO} (public on both sides, unlike the driver's connection state). Declines if not.
	 */
	private boolean speaksResp3(StatefulRedisConnection<byte[], byte[]> connection) {
		String info;
		try {
			info = String.valueOf(connection.sync().clientInfo());
		}
		catch (RedisCommandExecutionException ex) {
			decline("the server has no CLIENT INFO (Redis 6.2 or later, Valkey): " + ex.getMessage());
			return false;
		}
		Matcher resp = RESP.matcher(info);
		String protocol = resp.find() ? resp.group(1) : "?";
		if (!"3".equals(protocol)) {
			decline("the connection speaks RESP" + protocol
					+ " (the server did not accept HELLO 3, or the client is pinned to RESP2)");
			return false;
		}
		return true;
	}

	/**
	 * The nodes whose writes must be tracked: masters in the view that serve slots (even failing: until a replica
	 * replaces one, its writes are not proven absent) or are not failing (a master added, before it gets slots).
	 */
	private static Set<String> masters(Partitions partitions) {
		Set<String> masters = new LinkedHashSet<>();
		for (RedisClusterNode node : partitions) {
			if (!node.getRole().isUpstream() || node.is(RedisClusterNode.NodeFlag.HANDSHAKE)
					|| node.is(RedisClusterNode.NodeFlag.NOADDR)) {
				continue;
			}
			boolean failing = node.is(RedisClusterNode.NodeFlag.FAIL);
			if (!node.hasNoSlots() || !failing) {
				masters.add(node.getNodeId());
			}
		}
		return masters;
	}

	/** What a refresh is compared by: each node's id, role, failure flag and slots, in the view's order by id. */
	private static String describe(Partitions partitions) {
		StringBuilder view = new StringBuilder();
		partitions.stream()
			.sorted(Comparator.comparing(RedisClusterNode::getNodeId))
			.forEach((node) -> {
				view.append(node.getNodeId())
					.append(node.getRole().isUpstream() ? " master" : " replica")
					.append(node.is(RedisClusterNode.NodeFlag.FAIL) ? " failing" : "");
				int previous = -2;
				for (int slot : node.getSlots()) {
					if (slot != previous + 1) {
						view.append((previous < 0) ? "" : Integer.toString(previous)).append(' ').append(slot).append('-');
					}
					previous = slot;
				}
				view.append((previous < 0) ? "" : Integer.toString(previous)).append('\n');
			});
		return view.toString();
	}

	private TrackingArgs trackingArgs() {
		return TrackingArgs.Builder.enabled().bcast().prefixes(StandardCharsets.UTF_8, this.keyPrefix);
	}

	private void decline(String reason) {
		this.availability = Availability.UNAVAILABLE;
		logger.info("Near-cache tracking is not available, " + reason
				+ "; near caches in 'auto' mode use pub/sub, in 'tracking' mode they stay bypassed");
	}

	private void beat() {
		if (this.closed) {
			return;
		}
		if (this.availability == Availability.UNKNOWN) {
			this.lifecycle.lock();
			try {
				connect();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot make the near caches' tracking connection yet", ex);
			}
			finally {
				this.lifecycle.unlock();
			}
			return;
		}
		try {
			if (this.cluster != null) {
				if (this.topologyFollowed != this.topologyChanges.get() || this.settling) {
					refreshTopology();
				}
				follow();
			}
			for (Link link : this.linked) {
				link.beat();
			}
			trusted();
			regain();
		}
		catch (RuntimeException ex) {
			// A heartbeat that threw would be the last: the scheduler runs no more of a task that failed.
			logger.warn("The near caches' tracking heartbeat failed; trying again in " + this.heartbeat, ex);
		}
	}

	/**
	 * Makes the links the masters of the client's view (Cluster): a new master's connection is made without
	 * blocking and gets tracking, a node no longer master is dropped.
	 */
	private void follow() {
		StatefulRedisClusterConnection<byte[], byte[]> connection = this.cluster;
		if (connection == null || this.closed) {
			return;
		}
		Set<String> masters = masters(connection.getPartitions());
		for (Link link : this.links.values()) {
			if (!masters.contains(link.node)) {
				logger.info("Near caches' tracking leaves node " + link.node + ": no longer a master");
				link.drop();
			}
		}
		for (String master : masters) {
			if (this.links.containsKey(master) || !this.joining.add(master)) {
				continue;
			}
			loseTrust("master " + master + " has no tracking connection yet");
			connection.getConnectionAsync(master).whenComplete((node, failure) -> {
				this.joining.remove(master);
				if (failure != null) {
					logger.debug("Cannot connect to master " + master + " yet; trying again in " + this.heartbeat,
							failure);
				}
				else if (!this.closed && !this.links.containsKey(master)) {
					Link link = new Link(master, node, true);
					link.enable(link.session.get());
				}
			});
		}
	}

	/**
	 * Asks the client for a fresh view of the cluster, once at a time and not before a heartbeat has passed since
	 * the last change was noticed: a view asked for at once can catch the cluster halfway (the promoted replica
	 * not yet a master in the consensus, the demoted master still one); the next heartbeats follow it.
	 */
	private void refreshTopology() {
		if (!(this.client instanceof RedisClusterClient clusterClient)
				|| System.nanoTime() - this.changeNoticedNanos < this.heartbeat.toNanos()
				|| !this.refreshing.compareAndSet(false, true)) {
			return;
		}
		long asked = this.topologyChanges.get();
		try {
			clusterClient.refreshPartitionsAsync().whenComplete((done, failure) -> {
				this.refreshing.set(false);
				if (failure != null) {
					logger.debug("Cannot refresh the cluster's view yet; trying again in " + this.heartbeat, failure);
					return;
				}
				synchronized (this) {
					this.topologyFollowed = Math.max(this.topologyFollowed, asked);
				}
				String view = describe(clusterClient.getPartitions());
				this.settling = !view.equals(this.lastView);
				this.lastView = view;
				follow();
				regain();
				if (this.topologyFollowed != this.topologyChanges.get()) {
					// A change noticed while this refresh ran.
					refreshTopology();
				}
			});
		}
		catch (RuntimeException ex) {
			this.refreshing.set(false);
			logger.debug("Cannot refresh the cluster's view", ex);
		}
	}

	/** A master's {@code CLUSTER INFO}: a current epoch or a count of known nodes above any seen is a change. */
	private void clusterInfo(Link link, String info) {
		long currentEpoch = number(CURRENT_EPOCH, info);
		long known = number(KNOWN_NODES, info);
		long previousEpoch = this.clusterEpoch.getAndAccumulate(currentEpoch, Math::max);
		long previousKnown = this.knownNodes.getAndAccumulate(known, Math::max);
		if ((previousEpoch >= 0 && currentEpoch > previousEpoch) || (previousKnown >= 0 && known > previousKnown)) {
			this.changeNoticedNanos = System.nanoTime();
			this.topologyChanges.incrementAndGet();
			loseTrust("the cluster's configuration changed (" + link + ": current epoch " + currentEpoch + ", "
					+ known + " nodes known)");
			refreshTopology();
		}
	}

	private static long number(Pattern field, String info) {
		Matcher matcher = field.matcher(info);
		return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
	}

	/**
	 * Restores trust once every link has tracking on in its session and answers, and, on Cluster, the links are
	 * the masters of a view refreshed after the last change.
	 */
	private void regain() {
		@Nullable Duration resync = null;
		synchronized (this) {
			if (this.trusted || this.closed || this.availability != Availability.AVAILABLE) {
				return;
			}
			StatefulRedisClusterConnection<byte[], byte[]> connection = this.cluster;
			if (connection != null && (this.topologyFollowed != this.topologyChanges.get()
					|| !this.links.keySet().equals(masters(connection.getPartitions())))) {
				return;
			}
			for (Link link : this.linked) {
				if (!link.tracking()) {
					return;
				}
			}
			if (this.linked.length == 0) {
				return;
			}
			this.trusted = true;
			if (this.lostOnce) {
				resync = Duration.ofNanos(System.nanoTime() - this.trustLostNanos);
				this.lastResync = resync;
			}
		}
		String where = "tracking is on" + ((this.cluster != null) ? " on every master" : "");
		if (resync == null) {
			logger.info("Near caches answer: " + where);
		}
		else {
			logger.info("Near caches answer again, " + resync.toMillis() + " ms after they were bypassed: " + where);
		}
	}

	private void relink() {
		this.linked = this.links.values().toArray(Link[]::new);
	}

	private void unlink(Link link) {
		link.connection.removeListener(this.pushes);
		if (this.links.remove(link.node, link)) {
			relink();
		}
	}

	private @Nullable Link linkOf(RedisChannelHandler<?, ?> handler) {
		for (Link link : this.linked) {
			if (link.connection == handler) {
				return link;
			}
		}
		return null;
	}

	private void onPush(PushMessage message) {
		if (!"invalidate".equals(message.getType())) {
			return;
		}
		List<Object> content = message.getContent(CacheTracking::text);
		Object keys = (content.size() > 1) ? content.get(1) : null;
		if (keys == null) {
			// FLUSHDB, FLUSHALL: every key is gone.
			this.handlers.values().forEach((handler) -> handler.invalidated(null));
			return;
		}
		if (keys instanceof List<?> list) {
			for (Object key : list) {
				if (key instanceof String name) {
					route(name);
				}
				else if (key instanceof ByteBuffer buffer) {
					route((String) text(buffer));
				}
			}
		}
	}

	private static Object text(ByteBuffer buffer) {
		return StandardCharsets.UTF_8.decode(buffer.duplicate()).toString();
	}

	/**
	 * Tells the cache whose entry a key is. An entry key is {@code <prefix>cache:{<name>:<encoded key>}}; the lease
	 * and outcome keys (a suffix after the brace) are not entries. A key too long to be kept in the key itself was
	 * hashed ({@link KeyNaming}): it cannot be read back, so every entry of the caches it may belong to is dropped.
	 */
	private void route(String key) {
		if (!key.startsWith(this.keyPrefix) || !key.endsWith("}")) {
			return;
		}
		String inner = key.substring(this.keyPrefix.length(), key.length() - 1);
		int hashed = inner.indexOf('~');
		if (hashed >= 0) {
			String kept = inner.substring(0, hashed);
			this.handlers.forEach((name, handler) -> {
				String head = name + ":";
				if (kept.startsWith(head) || head.startsWith(kept)) {
					handler.invalidated(null);
				}
			});
			return;
		}
		int colon = inner.indexOf(':');
		if (colon < 0) {
			return;
		}
		Handler handler = this.handlers.get(inner.substring(0, colon));
		if (handler != null) {
			handler.invalidated(decode(inner.substring(colon + 1)));
		}
	}

	/** The inverse of {@link KeyNaming#encode(String)} for a name that was not hashed. */
	static String decode(String encoded) {
		if (encoded.indexOf('%') < 0) {
			return encoded;
		}
		StringBuilder decoded = new StringBuilder(encoded.length());
		for (int i = 0; i < encoded.length(); i++) {
			char c = encoded.charAt(i);
			if (c == '%' && i + 2 < encoded.length()) {
				decoded.append((char) Integer.parseInt(encoded, i + 1, i + 3, 16));
				i += 2;
			}
			else {
				decoded.append(c);
			}
		}
		return decoded.toString();
	}

	private void loseTrust(String reason) {
		synchronized (this) {
			if (!this.trusted) {
				return;
			}
			this.trusted = false;
			this.epoch++;
			this.trustLostNanos = System.nanoTime();
			this.lostOnce = true;
		}
		logger.info("Near caches flushed and bypassed until tracking is on again: " + reason);
		for (Runnable action : this.trustLost) {
			action.run();
		}
	}

	/**
	 * Ends the heartbeat and the connections. Returns within {@link BoundedStop#TIMEOUT}: a connection being made
	 * is not waited for longer.
	 */
	@Override
	public void close() {
		closeAsync();
	}

	/** @return {@link #close()}, completed once the tracking connections are closed */
	CompletableFuture<Void> closeAsync() {
		this.closed = true;
		this.trusted = false;
		if (!BoundedStop.lock(this.lifecycle, "the near caches' tracking connection")) {
			return CompletableFuture.completedFuture(null);
		}
		List<CompletableFuture<Void>> closing = new ArrayList<>();
		try {
			if (this.heartbeatTask != null) {
				this.heartbeatTask.cancel(false);
				this.heartbeatTask = null;
			}
			if (this.cluster != null) {
				closing.add(dropCluster());
				return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
			}
			if (this.client != null && this.stateListener != null) {
				this.client.removeListener(this.stateListener);
			}
			this.stateListener = null;
			for (Link link : this.links.values()) {
				unlink(link);
				closing.add(link.connection.closeAsync());
			}
		}
		finally {
			this.lifecycle.unlock();
		}
		return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
	}

	/** The driver's connection events of the tracked connections: on its event loop, nothing here blocks. */
	private final class SessionEvents implements RedisConnectionStateListener {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> handler, java.net.SocketAddress address) {
			Link link = linkOf(handler);
			if (link != null) {
				// The command is written once the connection is up.
				link.enable(link.session.get());
			}
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
			Link link = linkOf(handler);
			if (link != null) {
				link.disconnected();
			}
		}

	}

	/** One tracked connection (the server's, or a master's on Cluster) and its sessions. */
	private final class Link {

		final String node;

		final StatefulRedisConnection<byte[], byte[]> connection;

		/** Whether the heartbeat asks {@code CLUSTER INFO} (which also tells of topology changes) for a PING. */
		private final boolean clusterNode;

		/** One per connection the driver made: a reply sent in an older session proves nothing about this one. */
		final AtomicLong session = new AtomicLong();

		/** The session in which the server answered {@code CLIENT TRACKING ON}; another when it has not yet. */
		private volatile long trackingSession = -1;

		/** The session whose {@code CLIENT TRACKING ON} was sent and not yet answered: sent once per session. */
		private final AtomicLong enablingSession = new AtomicLong(-1);

		private final AtomicLong pingsSent = new AtomicLong();

		private final AtomicLong pingsReturned = new AtomicLong();

		volatile long lastReplyNanos = System.nanoTime();

		/** Whether its replies come back: not from two unanswered heartbeats (or three silent) to the next reply. */
		volatile boolean answering;

		private volatile boolean dropped;

		Link(String node, StatefulRedisConnection<byte[], byte[]> connection, boolean clusterNode) {
			this.node = node;
			this.connection = connection;
			this.clusterNode = clusterNode;
			connection.addListener(CacheTracking.this.pushes);
			CacheTracking.this.links.put(node, this);
			relink();
		}

		/** @return whether tracking is on in the current session and the connection answers */
		boolean tracking() {
			return !this.dropped && this.answering && this.trackingSession == this.session.get();
		}

		/** Turns tracking on now, on the caller's thread (the first connection, under the lifecycle lock). */
		void enableNow() {
			long current = this.session.get();
			this.enablingSession.set(current);
			try {
				this.connection.sync().clientTracking(trackingArgs());
			}
			catch (RuntimeException ex) {
				this.enablingSession.set(-1);
				throw ex;
			}
			trackingOn(current);
		}

		/**
		 * Turns tracking on in a session, once: {@code OFF} first, so that a repeat after an unanswered attempt
		 * (its reply lost to a timeout, the server having run it) does not collide with the prefix already
		 * registered.
		 */
		void enable(long inSession) {
			long previous = this.enablingSession.get();
			if (previous == inSession || !this.enablingSession.compareAndSet(previous, inSession)
					|| CacheTracking.this.closed || this.dropped) {
				return;
			}
			try {
				this.connection.async().clientTracking(TrackingArgs.Builder.enabled(false));
				this.connection.async().clientTracking(trackingArgs()).whenComplete((reply, failure) -> {
					if (failure == null) {
						trackingOn(inSession);
					}
					else {
						// Tried again by the next heartbeat.
						this.enablingSession.compareAndSet(inSession, -1);
						logger.debug("CLIENT TRACKING ON was not answered on " + this + "; trying again in "
								+ CacheTracking.this.heartbeat, failure);
					}
				});
			}
			catch (RuntimeException ex) {
				this.enablingSession.compareAndSet(inSession, -1);
				logger.debug("Cannot send CLIENT TRACKING ON on " + this + "; trying again in "
						+ CacheTracking.this.heartbeat, ex);
			}
		}

		private void trackingOn(long inSession) {
			synchronized (CacheTracking.this) {
				if (inSession != this.session.get() || CacheTracking.this.closed || this.dropped) {
					return;
				}
				this.trackingSession = inSession;
				// Replies of older sessions may never come back: only those from now on count.
				this.pingsReturned.set(this.pingsSent.get());
				this.lastReplyNanos = System.nanoTime();
				this.answering = true;
			}
			regain();
		}

		void disconnected() {
			this.session.incrementAndGet();
			this.trackingSession = -1;
			loseTrust(this + " is down");
		}

		void beat() {
			long current = this.session.get();
			if (this.trackingSession != current) {
				enable(current);
				return;
			}
			// Counted in replies, not time: a heartbeat held up by a busy scheduler neither hides a silent
			// connection nor ends trust early.
			if (this.pingsSent.get() - this.pingsReturned.get() >= 2) {
				this.answering = false;
				loseTrust("the last two heartbeats on " + this + ", a heartbeat apart, were not answered");
			}
			long number = this.pingsSent.incrementAndGet();
			try {
				if (this.clusterNode) {
					this.connection.async().clusterInfo().whenComplete((info, failure) -> {
						if (failure == null) {
							clusterInfo(this, info);
							replied(current, number);
						}
					});
				}
				else {
					this.connection.async().ping().whenComplete((reply, failure) -> {
						if (failure == null) {
							replied(current, number);
						}
					});
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot send the heartbeat on " + this, ex);
			}
		}

		private void replied(long inSession, long number) {
			this.pingsReturned.accumulateAndGet(number, Math::max);
			synchronized (CacheTracking.this) {
				if (inSession != this.session.get() || this.trackingSession != inSession || CacheTracking.this.closed
						|| this.dropped) {
					return;
				}
				this.lastReplyNanos = System.nanoTime();
				// Same connection throughout: the invalidations were late, never lost, and all have arrived now.
				this.answering = true;
			}
			regain();
		}

		/** Leaves a node that is no longer a master: tracking off, its connection left to the cluster connection. */
		void drop() {
			this.dropped = true;
			unlink(this);
			try {
				this.connection.async().clientTracking(TrackingArgs.Builder.enabled(false));
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot turn tracking off on " + this, ex);
			}
		}

		@Override
		public String toString() {
			return SERVER.equals(this.node) ? "the tracking connection" : "the tracking connection to master " + this.node;
		}

	}

}

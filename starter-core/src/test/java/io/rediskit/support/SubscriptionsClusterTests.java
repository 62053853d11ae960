package io.rediskit.support;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.rediskit.support.SubscriptionsTests.Events;
import io.rediskit.support.SubscriptionsTests.Received;
import io.rediskit.testsupport.RedisCluster;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.support.SubscriptionsTests.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Subscriptions} on a private Redis Cluster (3 masters, a replica each), where the client that opens the
 * subscriber also opens and closes connections of its own to every node: a topology refresh, the application's
 * connections to each master. Only the subscriber's connection going down counts: the others coming and going
 * leave the subscription up and its channels confirmed; the subscriber's connection killed on the node it lives on
 * ({@code CLIENT KILL TYPE pubsub}), or that node killed ({@code SIGKILL}), is reported down and then back, on the
 * same node or another, and carries messages again. Every wait is for a condition, bounded by {@link #BOUND}.
 */
class SubscriptionsClusterTests {

	/** Far beyond what a healthy step takes, a failover included; a wait that reaches it fails the test. */
	static final Duration BOUND = SubscriptionsTests.BOUND;

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	static final Duration RETRY = Duration.ofMillis(100);

	static RedisCluster cluster;

	private final Background background = Background.standalone("subscriptions-cluster-test");

	private final Queue<AutoCloseable> closing = new ConcurrentLinkedQueue<>();

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@AfterEach
	void closeAll() throws Exception {
		AutoCloseable each;
		while ((each = this.closing.poll()) != null) {
			each.close();
		}
		this.background.close();
		for (RedisServerProcess node : cluster.nodes()) {
			if (!node.isAlive()) {
				cluster.restart(node);
			}
		}
	}

	@Test
	void otherConnectionsOfTheClientComingAndGoingLeaveTheSubscriptionUp() throws Exception {
		LettuceConnectionFactory connections = connections();
		Subscriptions subscriptions = subscriptions(connections);
		Events events = new Events();
		subscriptions.addListener(events);
		Received received = new Received();
		subscriptions.subscribe("rk:test:{others}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		RedisServerProcess home = subscriberNode("rk:test:{others}");
		String subscriber = pubSubClientIds(home).get(0);
		int upBefore = events.up.get();
		RedisClusterClient client = (RedisClusterClient) connections.getRequiredNativeClient();
		OtherConnections others = new OtherConnections();
		client.addListener(others);
		try {
			// A topology refresh opens a connection to every node and closes it once the view is read.
			client.refreshPartitions();
			others.awaitAllClosed("the topology refresh's connections");
			// The application's connections to every master, then killed on the server: Lettuce reconnects them.
			int closedSoFar = others.closed.get();
			try (RedisClusterConnection clusterConnection = connections.getClusterConnection()) {
				cluster.masters().forEach((master) -> clusterConnection.ping(node(master)));
				cluster.nodes().forEach((node) -> node.command("CLIENT", "KILL", "TYPE", "normal"));
				others.awaitClosed("the application's connections killed", closedSoFar + cluster.masters().size());
				cluster.masters().forEach((master) -> clusterConnection.ping(node(master)));
			}
		}
		finally {
			client.removeListener(others);
		}
		assertThat(pubSubClientIds(home)).as("the subscriber's own connection, untouched").containsExactly(subscriber);
		// The subscriber's state is told on the same event loops as the events awaited above, and before a
		// message published after them reaches the handler.
		assertDelivered("rk:test:{others}", received);
		assertThat(events.down.get()).as("downs reported").isZero();
		assertThat(events.up.get()).as("ups reported").isEqualTo(upBefore);
		assertThat(subscriptions.isConnected()).isTrue();
		assertThat(subscriptions.isSubscribed("rk:test:{others}")).as("still confirmed").isTrue();
	}

	@Test
	void theSubscribersConnectionKilledOnItsNodeIsReportedDownThenBack() throws Exception {
		Subscriptions subscriptions = subscriptions(connections());
		Events events = new Events();
		subscriptions.addListener(events);
		Received received = new Received();
		subscriptions.subscribe("rk:test:{killed}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		int upBefore = events.up.get();
		subscriberNode("rk:test:{killed}").command("CLIENT", "KILL", "TYPE", "pubsub");
		awaitCondition("the drop to be reported", () -> events.down.get() >= 1);
		awaitCondition("the reconnect to be reported", () -> events.up.get() > upBefore);
		awaitCondition("the channel confirmed again", () -> subscriptions.isSubscribed("rk:test:{killed}"));
		assertDelivered("rk:test:{killed}", received);
	}

	@Test
	void theSubscribersNodeKilledIsReportedDownThenBackOnAnotherNode() throws Exception {
		Subscriptions subscriptions = subscriptions(connections());
		Events events = new Events();
		subscriptions.addListener(events);
		Received received = new Received();
		subscriptions.subscribe("rk:test:{node}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		int upBefore = events.up.get();
		RedisServerProcess home = subscriberNode("rk:test:{node}");
		home.kill();
		awaitCondition("the drop to be reported", () -> events.down.get() >= 1);
		awaitCondition("the reconnect to be reported", () -> events.up.get() > upBefore);
		awaitCondition("the channel confirmed again", () -> subscriptions.isSubscribed("rk:test:{node}"));
		assertDelivered("rk:test:{node}", received);
		cluster.restart(home);
		assertDelivered("rk:test:{node}", received);
		assertThat(subscriptions.isSubscribed("rk:test:{node}")).isTrue();
	}

	private Subscriptions subscriptions(LettuceConnectionFactory connections) {
		Subscriptions subscriptions = new Subscriptions(connections, this.background, "the test's channels",
				COMMAND_TIMEOUT, RETRY);
		this.closing.add(subscriptions);
		return subscriptions;
	}

	/** Spring Data's factory as an application on Cluster has it, without a topology refresh of its own. */
	private LettuceConnectionFactory connections() {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisClusterConfiguration(cluster.nodeAddresses()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		connections.afterPropertiesSet();
		connections.start();
		this.closing.add(connections::destroy);
		return connections;
	}

	/** @return the live node the channel's one subscriber is connected to (a cluster counts subscribers per node) */
	private static RedisServerProcess subscriberNode(String channel) throws InterruptedException {
		awaitCondition("one subscriber of " + channel, () -> subscribers(channel) == 1);
		return cluster.nodes().stream()
			.filter((node) -> node.isAlive() && subscribersOn(node, channel) == 1)
			.findFirst()
			.orElseThrow();
	}

	/**
	 * Publishes until the handler sees a message: a publish before the server knows the subscriber is lost. A
	 * cluster forwards a publish to every node, so it is sent to any live one.
	 */
	private static void assertDelivered(String channel, Received received) throws InterruptedException {
		awaitCondition("a subscriber of " + channel, () -> subscribers(channel) == 1);
		RedisServerProcess publisher = cluster.nodes().stream().filter(RedisServerProcess::isAlive).findFirst()
			.orElseThrow();
		int before = received.count.get();
		publisher.command("PUBLISH", channel, "hello");
		awaitCondition("the message on " + channel, () -> received.count.get() > before);
		assertThat(received.last).isEqualTo("hello");
	}

	private static long subscribers(String channel) {
		return cluster.nodes().stream().filter(RedisServerProcess::isAlive)
			.mapToLong((node) -> subscribersOn(node, channel))
			.sum();
	}

	private static long subscribersOn(RedisServerProcess node, String channel) {
		try {
			return (Long) ((List<?>) node.command("PUBSUB", "NUMSUB", channel)).get(1);
		}
		catch (RuntimeException ex) {
			// Killed or restarting: none there.
			return 0;
		}
	}

	private static List<String> pubSubClientIds(RedisServerProcess node) {
		return String.valueOf(node.command("CLIENT", "LIST", "TYPE", "pubsub")).lines()
			.filter((line) -> line.startsWith("id="))
			.map((line) -> line.substring(3, line.indexOf(' ')))
			.toList();
	}

	private static RedisClusterNode node(RedisServerProcess server) {
		return new RedisClusterNode(server.host(), server.port());
	}

	/** The client's connections other than the subscriber's (none of them is made or lost while it listens). */
	private static final class OtherConnections implements RedisConnectionStateListener {

		final Set<RedisChannelHandler<?, ?>> opened = ConcurrentHashMap.newKeySet();

		final AtomicInteger closed = new AtomicInteger();

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			this.opened.add(connection);
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			this.closed.incrementAndGet();
		}

		void awaitAllClosed(String what) throws InterruptedException {
			awaitCondition(what + " opened", () -> !this.opened.isEmpty());
			awaitCondition(what + " closed", () -> this.closed.get() >= this.opened.size());
		}

		void awaitClosed(String what, int count) throws InterruptedException {
			awaitCondition(what, () -> this.closed.get() >= count);
		}

	}

}

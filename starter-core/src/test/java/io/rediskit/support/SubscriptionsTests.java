package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.rediskit.testsupport.FaultProxy;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The one suite of {@link Subscriptions}, the pub/sub piece of the lock family's release channels, the queues'
 * wake-ups and the caches' invalidations, against a real server and real faults: the subscriber's connection
 * killed ({@code CLIENT KILL TYPE pubsub}), reset on the wire, the server restarted or stopped, a server that stops
 * answering ({@code SIGSTOP}) while a subscription waits for its confirmation or is being made, and a close then.
 * Every wait is for a condition, bounded by {@link #BOUND}; a message counts as delivered only once the server
 * says the channel has a subscriber and the handler saw it.
 */
class SubscriptionsTests {

	/** Far beyond what a healthy step takes; a wait that reaches it fails the test. */
	static final Duration BOUND = Duration.ofSeconds(30);

	/** A hang detector only: far beyond the documented bound of a stop. */
	static final Duration HANG = Duration.ofSeconds(60);

	/** The bound of a confirmation in these tests, so that a wait for one that cannot come ends soon. */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** Short, so that a repair is seen quickly; the rule it tests is the same at any interval. */
	static final Duration RETRY = Duration.ofMillis(100);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final Background background = Background.standalone("subscriptions-test");

	private final Queue<AutoCloseable> closing = new ConcurrentLinkedQueue<>();

	@AfterEach
	void closeAll() throws Exception {
		RedisServerProcess server = redis.server();
		if (!server.isAlive()) {
			server.restart();
		}
		server.resume();
		AutoCloseable each;
		while ((each = this.closing.poll()) != null) {
			each.close();
		}
		this.background.close();
	}

	@Test
	void subscribesWithoutBlockingDeliversAndUnsubscribes() throws Exception {
		Subscriptions subscriptions = subscriptions(connections(redis.server()));
		Received received = new Received();
		CompletableFuture<Void> subscribed = subscriptions.subscribe("rk:test:{plain}", received);
		subscribed.get(BOUND.toSeconds(), TimeUnit.SECONDS);
		assertThat(subscriptions.isSubscribed("rk:test:{plain}")).isTrue();
		assertDelivered(redis.server(), "rk:test:{plain}", received);
		subscriptions.unsubscribe("rk:test:{plain}");
		awaitCondition("the server to drop the subscriber", () -> subscribers(redis.server(), "rk:test:{plain}") == 0);
		assertThat(subscriptions.isSubscribed("rk:test:{plain}")).isFalse();
	}

	@Test
	void theSubscriberKilledByTheServerReconnectsAndSubscribesAgain() throws Exception {
		RedisServerProcess server = redis.server();
		Subscriptions subscriptions = subscriptions(connections(server));
		Events events = new Events();
		subscriptions.addListener(events);
		Received received = new Received();
		subscriptions.subscribe("rk:test:{killed}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		server.command("CLIENT", "KILL", "TYPE", "pubsub");
		awaitCondition("the drop to be reported", () -> events.down.get() >= 1);
		awaitCondition("the channel subscribed again", () -> subscriptions.isSubscribed("rk:test:{killed}"));
		assertThat(events.up.get()).as("reconnects reported").isPositive();
		assertDelivered(server, "rk:test:{killed}", received);
	}

	@Test
	void aConnectionResetOnTheWireReconnectsAndSubscribesAgain() throws Exception {
		try (FaultProxy proxy = FaultProxy.start(redis.server())) {
			LettuceConnectionFactory connections = proxy.newConnectionFactory(COMMAND_TIMEOUT);
			this.closing.add(connections::destroy);
			Subscriptions subscriptions = subscriptions(connections);
			Received received = new Received();
			subscriptions.subscribe("rk:test:{reset}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
			proxy.reset();
			awaitCondition("the reset to be seen", () -> !subscriptions.isSubscribed("rk:test:{reset}")
					|| subscribers(redis.server(), "rk:test:{reset}") == 0);
			awaitCondition("the channel subscribed again", () -> subscriptions.isSubscribed("rk:test:{reset}"));
			assertDelivered(redis.server(), "rk:test:{reset}", received);
		}
	}

	@Test
	void aServerRestartedLosesTheSubscriptionsAndTheyAreMadeAgain() throws Exception {
		RedisServerProcess server = redis.server();
		Subscriptions subscriptions = subscriptions(connections(server));
		Received first = new Received();
		Received second = new Received();
		subscriptions.subscribe("rk:test:{restart-1}", first).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		subscriptions.subscribe("rk:test:{restart-2}", second).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		server.restart();
		awaitCondition("both channels subscribed again", () -> subscribers(server, "rk:test:{restart-1}") == 1
				&& subscribers(server, "rk:test:{restart-2}") == 1);
		awaitCondition("the confirmations seen", () -> subscriptions.isSubscribed("rk:test:{restart-1}")
				&& subscriptions.isSubscribed("rk:test:{restart-2}"));
		assertDelivered(server, "rk:test:{restart-1}", first);
		assertDelivered(server, "rk:test:{restart-2}", second);
	}

	@Test
	void aSubscriptionAskedForWhileRedisIsDownFailsAtOnceAndIsMadeOnceItIsBack() throws Exception {
		RedisServerProcess server = redis.server();
		LettuceConnectionFactory connections = connections(server);
		Subscriptions subscriptions = subscriptions(connections);
		server.kill();
		Received received = new Received();
		CompletableFuture<Void> subscribed = subscriptions.subscribe("rk:test:{down}", received);
		// Refused: the wait learns it from the failed connection, well before the bound of a confirmation.
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> subscribed.get(BOUND.toSeconds(), TimeUnit.SECONDS))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex.getCause())).as("an outage: %s", ex.getCause())
				.isTrue());
		server.restart();
		awaitCondition("the channel subscribed once Redis is back", () -> subscriptions.isSubscribed("rk:test:{down}"));
		assertDelivered(server, "rk:test:{down}", received);
	}

	@Test
	void aConfirmationThatDoesNotComeEndsTheWaitAtTheBoundAndIsAskedForAgain() throws Exception {
		RedisServerProcess server = redis.server();
		Subscriptions subscriptions = connected(server);
		Received received = new Received();
		whilePaused(server, () -> {
			long started = System.nanoTime();
			assertFails(subscriptions.subscribe("rk:test:{paused}", received), QueryTimeoutException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the wait")
				.isGreaterThanOrEqualTo(COMMAND_TIMEOUT)
				.isLessThan(BOUND);
		});
		awaitCondition("the channel subscribed once Redis answers", () -> subscriptions.isSubscribed("rk:test:{paused}"));
		assertDelivered(server, "rk:test:{paused}", received);
	}

	@Test
	void aCloseWhileTheConnectionIsBeingMadeReturnsAtOnceAndTheConnectionEndsOnceMade() throws Exception {
		RedisServerProcess server = redis.server();
		// Longer than the hang detector: only the close can end the subscription's wait in time.
		LettuceConnectionFactory connections = TestConnections.lettuce(server, Duration.ofMinutes(5));
		this.closing.add(connections::destroy);
		ObservedExecutor executor = new ObservedExecutor();
		Background observed = Background.of(null, executor);
		this.closing.add(observed);
		Subscriptions subscriptions = new Subscriptions(connections, observed, "the test's channels",
				Duration.ofMinutes(5), RETRY);
		whilePaused(server, () -> {
			CompletableFuture<Void> subscribed = subscriptions.subscribe("rk:test:{closing}", new Received());
			awaitCondition("the connection to be opened", () -> executor.threads.stream()
				.anyMatch((thread) -> in(thread, "connectPubSub")));
			assertTimeoutPreemptively(HANG, subscriptions::close);
			assertFails(subscribed, IllegalStateException.class);
		});
		awaitCondition("the connection made after the close to end", () -> pubSubClients(server) == 0
				&& executor.threads.stream().noneMatch(Thread::isAlive));
		assertThat(subscriptions.isSubscribed("rk:test:{closing}")).isFalse();
		assertThat(subscriptions.subscribe("rk:test:{closing}", new Received())).isCompletedExceptionally();
	}

	@Test
	void aCloseWhileAConfirmationIsAwaitedFailsTheWaitAndLeavesNoSubscriber() throws Exception {
		RedisServerProcess server = redis.server();
		Subscriptions subscriptions = connected(server);
		whilePaused(server, () -> {
			CompletableFuture<Void> subscribed = subscriptions.subscribe("rk:test:{awaited}", new Received());
			assertTimeoutPreemptively(HANG, subscriptions::close);
			assertFails(subscribed, IllegalStateException.class);
		});
		awaitCondition("no subscriber left", () -> pubSubClients(server) == 0);
	}

	@Test
	void unsubscribingEndsAWaitAndAnotherSubscribeOfTheChannelIsItsOwn() throws Exception {
		RedisServerProcess server = redis.server();
		Subscriptions subscriptions = connected(server);
		whilePaused(server, () -> {
			CompletableFuture<Void> first = subscriptions.subscribe("rk:test:{again}", new Received());
			subscriptions.unsubscribe("rk:test:{again}");
			assertFails(first, CancellationException.class);
		});
		Received received = new Received();
		subscriptions.subscribe("rk:test:{again}", received).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		assertDelivered(server, "rk:test:{again}", received);
	}

	private Subscriptions subscriptions(LettuceConnectionFactory connections) {
		Subscriptions subscriptions = new Subscriptions(connections, this.background, "the test's channels",
				COMMAND_TIMEOUT, RETRY);
		this.closing.add(subscriptions);
		return subscriptions;
	}

	/** Subscriptions whose connection is made: a subscription asked for once the server is paused waits. */
	private Subscriptions connected(RedisServerProcess server) throws Exception {
		Subscriptions subscriptions = subscriptions(connections(server));
		subscriptions.subscribe("rk:test:{open}", new Received()).get(BOUND.toSeconds(), TimeUnit.SECONDS);
		return subscriptions;
	}

	private static void whilePaused(RedisServerProcess server, Step step) throws Exception {
		server.pause();
		try {
			step.run();
		}
		finally {
			server.resume();
		}
	}

	private static void assertFails(CompletableFuture<Void> stage, Class<? extends Throwable> cause) {
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> stage.get(BOUND.toSeconds(), TimeUnit.SECONDS))
			.withCauseInstanceOf(cause);
	}

	private LettuceConnectionFactory connections(RedisServerProcess server) {
		LettuceConnectionFactory connections = TestConnections.lettuce(server, COMMAND_TIMEOUT);
		this.closing.add(connections::destroy);
		return connections;
	}

	/** Publishes until the handler sees a message: a publish before the server knows the subscriber is lost. */
	private static void assertDelivered(RedisServerProcess server, String channel, Received received)
			throws InterruptedException {
		awaitCondition("a subscriber of " + channel, () -> subscribers(server, channel) == 1);
		int before = received.count.get();
		server.command("PUBLISH", channel, "hello");
		awaitCondition("the message on " + channel, () -> received.count.get() > before);
		assertThat(received.last).isEqualTo("hello");
	}

	private static long subscribers(RedisServerProcess server, String channel) {
		try {
			return (Long) ((List<?>) server.command("PUBSUB", "NUMSUB", channel)).get(1);
		}
		catch (RuntimeException ex) {
			// Restarting: not yet.
			return -1;
		}
	}

	private static long pubSubClients(RedisServerProcess server) {
		Object reply = server.command("CLIENT", "LIST", "TYPE", "pubsub");
		return String.valueOf(reply).lines().filter((line) -> !line.isBlank()).count();
	}

	private static boolean in(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals(method));
	}

	/**
	 * Waits until the condition holds, failing the test after {@link #BOUND} (also {@code SubscriptionsClusterTests}').
	 */
	static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + BOUND.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + BOUND + " waiting for " + what);
			}
			Thread.sleep(5);
		}
	}

	@FunctionalInterface
	private interface Step {

		void run() throws Exception;

	}

	/** Counts the messages a subscription delivered and keeps the last (also {@code SubscriptionsClusterTests}'). */
	static final class Received implements java.util.function.Consumer<byte[]> {

		final AtomicInteger count = new AtomicInteger();

		volatile String last;

		@Override
		public void accept(byte[] message) {
			this.last = new String(message, StandardCharsets.UTF_8);
			this.count.incrementAndGet();
		}

	}

	/** Counts the subscription's ups and downs (also {@code SubscriptionsClusterTests}'). */
	static final class Events implements Subscriptions.Listener {

		final AtomicInteger up = new AtomicInteger();

		final AtomicInteger down = new AtomicInteger();

		@Override
		public void onConnected() {
			this.up.incrementAndGet();
		}

		@Override
		public void onDisconnected() {
			this.down.incrementAndGet();
		}

	}

	/** Runs each task on a thread of its own that the test can look into. */
	private static final class ObservedExecutor implements Executor {

		final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

		@Override
		public void execute(Runnable task) {
			Thread thread = new Thread(task, "observed-subscription-" + this.threads.size());
			thread.setDaemon(true);
			this.threads.add(thread);
			thread.start();
		}

	}

}

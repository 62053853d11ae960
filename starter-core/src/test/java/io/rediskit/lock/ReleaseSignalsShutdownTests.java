package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A registry closed after its connection factory was destroyed while a release-channel subscription was being made
 * (the hang of issue 23: {@code BloomGuardTests} destroyed the factory first). The failed subscription makes Spring
 * Data's listener container retry inside its lock, then wait without a limit for the very stop that waits for that
 * lock: {@link LockRegistry#close()} must return all the same, within the bound of its stop.
 */
class ReleaseSignalsShutdownTests {

	/** A hang detector only: far beyond the documented bound of a stop. */
	static final Duration HANG = Duration.ofSeconds(60);

	static final Duration BOUND = Duration.ofSeconds(20);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@Test
	void closeReturnsAfterTheFactoryWasDestroyedUnderASubscriptionBeingMade() throws Exception {
		RedisServerProcess server = redis.server();
		LettuceConnectionFactory holderConnections = TestConnections.lettuce(server);
		LettuceConnectionFactory connections = TestConnections.lettuce(server);
		GatedExecutor subscriptions = new GatedExecutor();
		LockRegistry holder = registry(holderConnections);
		LockRegistry waiting = registry(connections);
		waiting.setSubscriptionExecutor(subscriptions);
		Thread waiter = null;
		try {
			String name = "destroyed-under-subscription";
			holder.getLock(name).acquire(Duration.ZERO);
			RedisLock lock = waiting.getLock(name);
			waiter = new Thread(() -> {
				try {
					lock.tryLock(HANG);
				}
				catch (InterruptedException | RuntimeException ex) {
					// Any end will do: the registry is closed under it.
				}
			}, "waiter-of-a-destroyed-factory");
			waiter.setDaemon(true);
			waiter.start();
			awaitCondition("the waiter to join", BOUND, () -> waiting.signals().waiting(lock.keys().released) == 1);
			// The server stops answering: the container's subscription connects and waits for its handshake.
			server.pause();
			subscriptions.open();
			awaitCondition("the container to connect its subscription", BOUND,
					() -> subscriptions.threads.stream().anyMatch((thread) -> in(thread, "connectPubSub")));
			// The connection fails under the subscription while the container runs: it retries after a pause,
			// inside its lock. The registry is closed meanwhile.
			connections.destroy();
			awaitCondition("the container to retry its subscription", BOUND,
					() -> subscriptions.threads.stream().anyMatch((thread) -> in(thread, "potentiallyRecover")));
			assertTimeoutPreemptively(HANG, waiting::close,
					() -> "close() hangs:\n" + threads("redis-kit", "gated-subscription", "waiter-"));
		}
		finally {
			server.resume();
			if (waiter != null) {
				waiter.interrupt();
			}
			holder.close();
			holderConnections.destroy();
		}
	}

	private static boolean in(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals(method));
	}

	private static String threads(String... prefixes) {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.filter((entry) -> Arrays.stream(prefixes).anyMatch(entry.getKey().getName()::startsWith))
			.map((entry) -> entry.getKey().getName() + "\n" + Arrays.stream(entry.getValue())
				.map((frame) -> "\tat " + frame)
				.collect(Collectors.joining("\n")))
			.collect(Collectors.joining("\n"));
	}

	private static LockRegistry registry(LettuceConnectionFactory connections) {
		return new LockRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				LockSpec.defaults(), List.of(), Clock.systemUTC());
	}

	/** Holds the subscriptions back until {@link #open()}, then runs each on a thread of its own. */
	static final class GatedExecutor implements Executor {

		final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

		private final Queue<Runnable> held = new ConcurrentLinkedQueue<>();

		private volatile boolean open;

		@Override
		public void execute(Runnable task) {
			if (this.open) {
				run(task);
			}
			else {
				this.held.add(task);
				if (this.open) {
					drainHeld();
				}
			}
		}

		void open() {
			this.open = true;
			drainHeld();
		}

		private void drainHeld() {
			Runnable task;
			while ((task = this.held.poll()) != null) {
				run(task);
			}
		}

		private void run(Runnable task) {
			Thread thread = new Thread(task, "gated-subscription-" + this.threads.size());
			thread.setDaemon(true);
			this.threads.add(thread);
			thread.start();
		}

	}

}

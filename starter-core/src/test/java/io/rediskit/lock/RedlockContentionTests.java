package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.lock.LockTesting.fencedWrite;
import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Redlock under contention: the waiters of one registry for one name take turns in arrival order, only the first
 * sending rounds (sync and async alike, a wait that runs out or is cancelled in the line leaving it), a release
 * of the same process waking the first waiter out of its pause, and
 * threads of three processes contending on one name all get through with mutual exclusion checked independently.
 * Before the line, every waiting thread sent its own rounds and the losing rounds' votes held the nodes: 16
 * acquisitions in two minutes for 24 waiters of two processes on a loaded machine.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RedlockContentionTests {

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.servers(RedlockTesting.NODES + 1);

	RedlockTesting nodes;

	RedisServerProcess checker;

	LettuceConnectionFactory checkerConnections;

	@BeforeEach
	void setUp() {
		this.nodes = new RedlockTesting(servers);
		this.checker = servers.server(RedlockTesting.NODES);
		this.checkerConnections = TestConnections.lettuce(this.checker, Duration.ofSeconds(10));
	}

	@AfterEach
	void tearDown() {
		this.checkerConnections.destroy();
		this.nodes.close();
	}

	@Test
	void waitersOfOneProcessTakeTheLockInArrivalOrder() throws Exception {
		RedlockRegistry registry = this.nodes.registry(RedlockTesting.spec());
		RedisLock lock = registry.getLock("line");
		ExecutorService executor = Executors.newCachedThreadPool();
		List<Integer> order = new CopyOnWriteArrayList<>();
		try {
			CompletableFuture<Void> release = new CompletableFuture<>();
			Future<?> holder = holdUntil(executor, registry, lock, release);
			List<Future<?>> waiters = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				int index = i;
				waiters.add(executor.submit(() -> {
					assertThat(lock.tryLock(Duration.ofMinutes(2))).isTrue();
					try {
						order.add(index);
					}
					finally {
						lock.unlock();
					}
					return null;
				}));
				// The next waiter joins only once this one is in the line: their arrival order is known.
				LockTesting.awaitCondition("waiter " + i + " in the line", Duration.ofMinutes(1),
						() -> registry.waiting("line") == index + 1);
			}
			release.complete(null);
			holder.get(2, TimeUnit.MINUTES);
			for (Future<?> waiter : waiters) {
				waiter.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(order).containsExactly(0, 1, 2, 3, 4);
		assertThat(registry.waiting("line")).isZero();
	}

	@Test
	void aReleaseInThisProcessWakesTheFirstWaiterOutOfItsPause() throws Exception {
		// Pauses of ten minutes: a waiter gets the lock within the test only if the release wakes it.
		RedlockRegistry registry = this.nodes
			.registry(RedlockTesting.spec().withRetry(Duration.ofMinutes(10), Duration.ZERO));
		RedisLock lock = registry.getLock("wake");
		ExecutorService executor = Executors.newCachedThreadPool();
		try {
			CompletableFuture<Void> release = new CompletableFuture<>();
			Future<?> holder = holdUntil(executor, registry, lock, release);
			Future<Boolean> waiter = executor.submit(() -> {
				boolean acquired = lock.tryLock(Duration.ofMinutes(5));
				if (acquired) {
					lock.unlock();
				}
				return acquired;
			});
			LockTesting.awaitCondition("the waiter in the line", Duration.ofMinutes(1), () -> registry.waiting("wake") == 1);
			CompletableFuture<Lease> asyncWaiter = lock.acquireAsync(Duration.ofMinutes(5)).toCompletableFuture();
			LockTesting.awaitCondition("the async waiter in the line", Duration.ofMinutes(1),
					() -> registry.waiting("wake") == 2);
			release.complete(null);
			holder.get(1, TimeUnit.MINUTES);
			assertThat(waiter.get(1, TimeUnit.MINUTES)).isTrue();
			asyncWaiter.get(1, TimeUnit.MINUTES).releaseAsync().toCompletableFuture().get(1, TimeUnit.MINUTES);
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(registry.waiting("wake")).isZero();
	}

	@Test
	void asyncWaitersTakeTurnsAndLeaveTheLineWhenTheirWaitEndsThere() throws Exception {
		RedlockRegistry registry = this.nodes.registry(RedlockTesting.spec());
		RedisLock lock = registry.getLock("async-line");
		Lease first = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(1, TimeUnit.MINUTES);
		// First in the line: it sends rounds, refused while the lease is held.
		CompletableFuture<Lease> sender = lock.acquireAsync(Duration.ofMinutes(2)).toCompletableFuture();
		LockTesting.awaitCondition("the sender in the line", Duration.ofMinutes(1), () -> registry.waiting("async-line") == 1);
		// Behind it: one whose wait ends in the line, one cancelled there, one that waits its turn.
		CompletableFuture<Lease> timesOut = lock.acquireAsync(Duration.ofMillis(200)).toCompletableFuture();
		CompletableFuture<Lease> cancelled = lock.acquireAsync(Duration.ofMinutes(2)).toCompletableFuture();
		CompletableFuture<Lease> last = lock.acquireAsync(Duration.ofMinutes(2)).toCompletableFuture();
		assertThat(registry.waiting("async-line")).isEqualTo(4);
		assertThatThrownBy(() -> timesOut.get(1, TimeUnit.MINUTES)).hasCauseInstanceOf(LockNotAcquiredException.class);
		cancelled.cancel(false);
		LockTesting.awaitCondition("the line without the two", Duration.ofMinutes(1),
				() -> registry.waiting("async-line") == 2);
		assertThat(last).isNotDone();
		first.releaseAsync().toCompletableFuture().get(1, TimeUnit.MINUTES);
		Lease second = sender.get(1, TimeUnit.MINUTES);
		assertThat(last).isNotDone();
		second.releaseAsync().toCompletableFuture().get(1, TimeUnit.MINUTES);
		Lease third = last.get(1, TimeUnit.MINUTES);
		assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
		third.releaseAsync().toCompletableFuture().get(1, TimeUnit.MINUTES);
		assertThat(registry.waiting("async-line")).isZero();
		// A release returns once a majority confirmed it; the other nodes get it right after.
		LockTesting.awaitCondition("every node free", Duration.ofMinutes(1), () -> this.nodes.nodesHolding("async-line") == 0);
	}

	@Test
	void threadsOfThreeProcessesAllGetThroughWithoutOverlapping() throws Exception {
		String ports = servers.all()
			.subList(0, RedlockTesting.NODES)
			.stream()
			.map((server) -> Integer.toString(server.port()))
			.collect(Collectors.joining(","));
		int threads = 6;
		int iterations = 15;
		List<Process> workers = new ArrayList<>();
		for (int w = 0; w < 2; w++) {
			workers.add(LockWorker.start("redlock-count", Integer.toString(this.checker.port()), "shared-lock",
					"counter", "resource", Integer.toString(threads), Integer.toString(iterations), ports));
		}
		AtomicLong rejected = new AtomicLong();
		AtomicLong outages = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		RedlockRegistry registry = this.nodes.registry(RedlockTesting.spec());
		List<String> results = new ArrayList<>();
		try {
			RedisLock lock = registry.getLock("shared-lock");
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = this.checkerConnections.getConnection()) {
						for (int i = 0; i < iterations; i++) {
							RedlockConcurrencyTests.lockThroughOutages(lock, outages);
							try {
								unsafeIncrement(connection, "counter");
								if (!fencedWrite(this.checkerConnections, "resource", lock.fencingToken(), "local")) {
									rejected.incrementAndGet();
								}
							}
							finally {
								RedlockConcurrencyTests.unlockThroughOutages(lock, outages);
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(3, TimeUnit.MINUTES);
			}
			for (Process worker : workers) {
				// Each worker ends itself within LockWorker.LIFETIME at the latest, so this read cannot hang.
				results.add(RedlockConcurrencyTests.readLine(worker, "done "));
				assertThat(worker.waitFor(1, TimeUnit.MINUTES)).isTrue();
			}
		}
		finally {
			executor.shutdownNow();
			workers.forEach(Process::destroyForcibly);
		}
		assertThat(results).containsExactly("done 0", "done 0");
		assertThat(rejected.get()).isZero();
		assertThat(this.checker.command("GET", "counter")).isEqualTo(Long.toString(3L * threads * iterations));
		assertThat(registry.waiting("shared-lock")).isZero();
	}

	/**
	 * Takes the lock on a thread of the executor and holds it until {@code release} completes; returns once the
	 * holder has left the line, so that the next waiter to join is the first.
	 */
	private Future<?> holdUntil(ExecutorService executor, RedlockRegistry registry, RedisLock lock,
			CompletableFuture<Void> release) {
		CompletableFuture<Void> held = new CompletableFuture<>();
		Future<?> holder = executor.submit(() -> {
			lock.lock();
			try {
				held.complete(null);
				release.join();
			}
			finally {
				lock.unlock();
			}
			return null;
		});
		// lock() returns after its waiter left the line.
		LockTesting.awaitCondition("the first holder", Duration.ofMinutes(1), held::isDone);
		assertThat(registry.waiting(lock.name())).isZero();
		return holder;
	}

}

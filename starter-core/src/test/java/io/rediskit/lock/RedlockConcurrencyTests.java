package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.rediskit.support.RedisFailures;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.lock.LockTesting.fencedWrite;
import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redlock mutual exclusion checked independently, on five lock nodes and a sixth server that is none of them:
 * a counter on the sixth server incremented by GET then SET is exact only if no two holders overlap, and a
 * fenced resource there accepts every holder's write only if tokens strictly increase. Threads of this JVM and of
 * a second one compete, while two of the five nodes are down for part of the run; calls that fail fast on an
 * outage, as documented, are retried (lock) or counted (unlock), and the checker still sees every holder.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RedlockConcurrencyTests {

	/** The longest one thread tries to get the lock through outages before the test fails. */
	private static final Duration LOCK_PATIENCE = Duration.ofMinutes(2);

	private static final int THREADS = 16;

	private static final int ITERATIONS_PER_THREAD = 25;

	private static final int WORKER_THREADS = 8;

	private static final int WORKER_ITERATIONS = 25;

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
	void threadsOfTwoJvmsNeverOverlapWhileAMinorityOfNodesFails() throws Exception {
		String ports = servers.all()
			.subList(0, RedlockTesting.NODES)
			.stream()
			.map((server) -> Integer.toString(server.port()))
			.collect(Collectors.joining(","));
		Process worker = LockWorker.start("redlock-count", Integer.toString(this.checker.port()), "counter-lock",
				"counter", "resource", Integer.toString(WORKER_THREADS), Integer.toString(WORKER_ITERATIONS), ports);
		AtomicLong rejected = new AtomicLong();
		AtomicLong done = new AtomicLong();
		AtomicLong outages = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		RedlockRegistry registry = this.nodes.registry(RedlockTesting.spec());
		String workerResult;
		try {
			RedisLock lock = registry.getLock("counter-lock");
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = this.checkerConnections.getConnection()) {
						for (int i = 0; i < ITERATIONS_PER_THREAD; i++) {
							lockThroughOutages(lock, outages);
							try {
								unsafeIncrement(connection, "counter");
								if (!fencedWrite(this.checkerConnections, "resource", lock.fencingToken(), "local")) {
									rejected.incrementAndGet();
								}
							}
							finally {
								unlockThroughOutages(lock, outages);
							}
							done.incrementAndGet();
						}
					}
					return null;
				}));
			}
			// A minority fails mid-run: a node killed (its data gone) and another paused, then both back.
			LockTesting.awaitCondition("the run to be under way", Duration.ofMinutes(2),
					() -> done.get() >= THREADS * ITERATIONS_PER_THREAD / 4);
			this.nodes.node(1).kill();
			this.nodes.node(3).pause();
			LockTesting.awaitCondition("progress with two nodes down", Duration.ofMinutes(2),
					() -> done.get() >= THREADS * ITERATIONS_PER_THREAD / 2);
			this.nodes.node(3).resume();
			this.nodes.node(1).restart();
			for (Future<?> task : tasks) {
				task.get(LOCK_PATIENCE.toMinutes() + 1, TimeUnit.MINUTES);
			}
			assertThat(registry.heldLocks()).isEmpty();
			// The worker ends itself within LockWorker.LIFETIME at the latest, so this read cannot hang.
			workerResult = readLine(worker, "done ");
			assertThat(worker.waitFor(1, TimeUnit.MINUTES)).isTrue();
		}
		finally {
			executor.shutdownNow();
			worker.destroyForcibly();
		}
		assertThat(workerResult).isEqualTo("done 0");
		assertThat(rejected.get()).isZero();
		long expected = (long) THREADS * ITERATIONS_PER_THREAD + (long) WORKER_THREADS * WORKER_ITERATIONS;
		assertThat(this.checker.command("GET", "counter")).isEqualTo(Long.toString(expected));
		LockTesting.awaitCondition("every node to be free", Duration.ofSeconds(30),
				() -> this.nodes.nodesHolding("counter-lock") == 0);
	}

	@Test
	void theCheckerCatchesOverlapsAndStaleTokens() throws Exception {
		// Without a lock, concurrent read-modify-writes lose increments: the counter is a real detector.
		int threads = 8;
		int iterations = 200;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = this.checkerConnections.getConnection()) {
						for (int i = 0; i < iterations; i++) {
							unsafeIncrement(connection, "unguarded");
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(2, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(Long.parseLong((String) this.checker.command("GET", "unguarded")))
			.isLessThan((long) threads * iterations);
		assertThat(fencedWrite(this.checkerConnections, "fenced", 10, "a")).isTrue();
		assertThat(fencedWrite(this.checkerConnections, "fenced", 10, "b")).isFalse();
		assertThat(fencedWrite(this.checkerConnections, "fenced", 9, "c")).isFalse();
	}

	/**
	 * Takes the lock, trying again after an outage: with two nodes down a third that answers late on this loaded
	 * machine makes a round fail fast, as documented, and the caller decides. Gives up after
	 * {@link #LOCK_PATIENCE}: a client that never gets through (its nodes are gone) fails instead of looping.
	 */
	static void lockThroughOutages(RedisLock lock, AtomicLong outages) {
		long deadline = System.nanoTime() + LOCK_PATIENCE.toNanos();
		while (true) {
			try {
				if (lock.tryLock(Duration.ofSeconds(10))) {
					return;
				}
			}
			catch (DataAccessException ex) {
				if (!RedisFailures.isUnavailable(ex)) {
					throw ex;
				}
				outages.incrementAndGet();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while taking " + lock.name(), ex);
			}
			if (System.nanoTime() - deadline >= 0) {
				throw new IllegalStateException("No Redlock on " + lock.name() + " within " + LOCK_PATIENCE
						+ " through " + outages.get() + " outages");
			}
		}
	}

	/**
	 * Releases; a release that cannot be confirmed by a majority (a killed node forgot its key, another is
	 * paused) throws as documented, after releasing on every node that answered; the lease ends the rest.
	 */
	static void unlockThroughOutages(RedisLock lock, AtomicLong outages) {
		try {
			lock.unlock();
		}
		catch (DataAccessException | LockLeaseLostException ex) {
			outages.incrementAndGet();
		}
	}

	static String readLine(Process process, String prefix) throws Exception {
		String line;
		do {
			line = readLine(process);
		}
		while (!line.startsWith(prefix) && !line.startsWith("(no output"));
		return line;
	}

	private static String readLine(Process process) throws Exception {
		java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
		int b;
		while ((b = process.getInputStream().read()) != -1 && b != '\n') {
			line.write(b);
		}
		if (b == -1 && line.size() == 0) {
			return "(no output, exit " + (process.isAlive() ? "running" : process.exitValue()) + ")";
		}
		return line.toString(StandardCharsets.UTF_8);
	}

}

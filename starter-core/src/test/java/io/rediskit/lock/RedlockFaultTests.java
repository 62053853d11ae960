package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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

import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every synchronous Redlock call returns within its bound while many threads compete and the nodes go through
 * the fault shapes of the two-JVM test: a node killed (its data gone) and restarted, another paused with SIGSTOP
 * and resumed, and the registry stopped and started again (its executor shut down under calls chained on a
 * suspect node). A counter on a sixth server, incremented by GET then SET under the lock, checks that the holders
 * never overlapped.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RedlockFaultTests {

	private static final int THREADS = 12;

	private static final int CYCLES = 4;

	private static final Duration FAULT_DURATION = Duration.ofMillis(1500);

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);

	private static final Duration WAIT = Duration.ofMillis(500);

	/** Thread scheduling on a loaded 2-core machine, on top of the bound the registry enforces. */
	private static final Duration SLACK = Duration.ofSeconds(1);

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
	void everyCallReturnsWithinItsBoundThroughKillsPausesRestartsAndRegistryRestarts() throws Exception {
		RedlockRegistry registry = this.nodes.registry(RedlockTesting.spec().withNodeTimeout(NODE_TIMEOUT));
		RedisLock lock = registry.getLock("fault-lock");
		Duration callBound = registry.nodes().callTimeout();
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong held = new AtomicLong();
		AtomicLong outages = new AtomicLong();
		AtomicLong slowestTryLockNanos = new AtomicLong();
		AtomicLong slowestUnlockNanos = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = this.checkerConnections.getConnection()) {
						while (running.get()) {
							long started = System.nanoTime();
							boolean acquired;
							try {
								acquired = lock.tryLock(WAIT);
							}
							catch (DataAccessException ex) {
								assertThat(RedisFailures.isUnavailable(ex)).as("an outage, not %s", ex).isTrue();
								outages.incrementAndGet();
								acquired = false;
							}
							slowestTryLockNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
							if (!acquired) {
								continue;
							}
							try {
								unsafeIncrement(connection, "counter");
								held.incrementAndGet();
							}
							finally {
								long releasing = System.nanoTime();
								try {
									lock.unlock();
								}
								catch (DataAccessException | LockLeaseLostException ex) {
									outages.incrementAndGet();
								}
								slowestUnlockNanos.accumulateAndGet(System.nanoTime() - releasing, Math::max);
							}
						}
					}
					return null;
				}));
			}
			for (int cycle = 0; cycle < CYCLES; cycle++) {
				awaitProgress(held, 10);
				this.nodes.node(1).kill();
				this.nodes.node(3).pause();
				// Not a timing assertion: how long the threads run against the faulty nodes.
				Thread.sleep(FAULT_DURATION.toMillis());
				awaitProgress(held, 10);
				registry.stop();
				registry.start();
				this.nodes.node(3).resume();
				this.nodes.node(1).restart();
			}
			awaitProgress(held, 10);
			running.set(false);
			for (Future<?> task : tasks) {
				task.get(1, TimeUnit.MINUTES);
			}
		}
		finally {
			running.set(false);
			executor.shutdownNow();
		}
		assertThat(Duration.ofNanos(slowestTryLockNanos.get())).isLessThan(WAIT.plus(callBound).plus(SLACK));
		assertThat(Duration.ofNanos(slowestUnlockNanos.get())).isLessThan(callBound.plus(SLACK));
		assertThat(this.checker.command("GET", "counter")).isEqualTo(Long.toString(held.get()));
	}

	private static void awaitProgress(AtomicLong held, long holds) {
		long target = held.get() + holds;
		LockTesting.awaitCondition(holds + " more holds", Duration.ofMinutes(1), () -> held.get() >= target);
	}

}

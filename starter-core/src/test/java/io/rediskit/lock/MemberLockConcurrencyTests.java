package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read-write and fair locks across two JVMs: many threads here and in a second JVM never put a writer beside
 * anyone (checked by counters in Redis that no lock guards, and here by a {@link SharedHoldLog} too), and a fair
 * waiter killed with {@code kill -9} in the middle of the line delays those behind it by at most the documented
 * bound.
 */
class MemberLockConcurrencyTests {

	private static final int THREADS = 16;

	private static final int ITERATIONS = 60;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofSeconds(10));

	RedisServerProcess server;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
	}

	@Test
	void threadsAndASecondJvmNeverPutAWriterBesideAnyone() throws Exception {
		Process worker = MemberLockWorker.start("rw", Integer.toString(this.server.port()), "shared",
				Integer.toString(THREADS / 2), Integer.toString(ITERATIONS));
		AtomicLong violations = new AtomicLong();
		SharedHoldLog log = new SharedHoldLog();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try (ReadWriteLockRegistry registry = new ReadWriteLockRegistry(redis.connections())) {
			ReadWriteLock lock = registry.getReadWriteLock("shared");
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = redis.connections().getConnection()) {
						for (int i = 0; i < ITERATIONS; i++) {
							boolean write = (i + thread) % 4 == 0;
							RedisLock side = write ? lock.writeLock() : lock.readLock();
							side.lock();
							long entered = SharedHoldLog.now();
							try {
								if (!MemberLockWorker.checkInside(connection, write)) {
									violations.incrementAndGet();
								}
							}
							finally {
								long token = side.fencingToken();
								long left = SharedHoldLog.now();
								side.unlock();
								if (write) {
									log.write(entered, left, token);
								}
								else {
									log.read(entered, left, token);
								}
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(60, TimeUnit.SECONDS);
			}
			// The worker ends itself within its lifetime at the latest, so this read cannot hang.
			assertThat(readLine(worker, "done ")).isEqualTo("done 0");
		}
		finally {
			executor.shutdownNow();
			worker.destroyForcibly();
		}
		assertThat(violations.get()).as("holds here that saw a writer beside them").isZero();
		assertThat(log.violations()).isEmpty();
		assertThat(log.writes()).isEqualTo(THREADS * ITERATIONS / 4);
		assertThat(this.server.command("KEYS", "rk:rwlock:{*}")).isEqualTo(List.of());
	}

	@Test
	void aFairWaiterKilledInTheLineDelaysTheRestByAtMostTheBound() throws Exception {
		WaiterLineSpec spec = WaiterLineSpec.defaults().withWaiterTimeout(Duration.ofSeconds(1))
			.withMaxPollInterval(Duration.ofMillis(200));
		String line = KeyNaming.defaults().key("fairlock", "line-of-three", "line");
		ExecutorService executor = Executors.newSingleThreadExecutor();
		Process dead = null;
		try (FairLockRegistry registry = new FairLockRegistry(ScriptExecutor.of(redis.connections()),
				redis.connections(), KeyNaming.defaults(), spec, List.of(), Clock.systemUTC())) {
			RedisLock lock = registry.getLock("line-of-three");
			Lease holder = lock.acquire(Duration.ZERO);
			dead = MemberLockWorker.start("fair-wait", Integer.toString(this.server.port()), "line-of-three", "1000");
			assertThat(readLine(dead, "waiting")).isEqualTo("waiting");
			LockTesting.awaitCondition("the worker in line", Duration.ofSeconds(20),
					() -> Long.valueOf(1).equals(this.server.command("ZCARD", line)));
			Future<Long> behind = executor.submit(() -> {
				try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
					return System.nanoTime();
				}
			});
			LockTesting.awaitCondition("a waiter behind the worker", Duration.ofSeconds(5),
					() -> Long.valueOf(2).equals(this.server.command("ZCARD", line)));
			dead.destroyForcibly();
			assertThat(dead.waitFor(10, TimeUnit.SECONDS)).isTrue();
			long released = System.nanoTime();
			holder.close();
			Duration delay = Duration.ofNanos(behind.get(30, TimeUnit.SECONDS) - released);
			// The bound (1.2 s here) plus generous room for a busy machine; without the places' end it would be
			// the waiter's whole wait (30 s).
			assertThat(delay).as("delay behind the dead waiter, bound " + spec.deadWaiterDelayBound())
				.isLessThan(spec.deadWaiterDelayBound().plusSeconds(3));
		}
		finally {
			executor.shutdownNow();
			if (dead != null) {
				dead.destroyForcibly();
			}
		}
		LockTesting.awaitCondition("no fair lock keys", Duration.ofSeconds(5),
				() -> List.of().equals(this.server.command("KEYS", "rk:fairlock:{*}")));
	}

	/** Reads lines until one starts with the prefix, skipping the worker's log output. */
	private static String readLine(Process process, String prefix) throws Exception {
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

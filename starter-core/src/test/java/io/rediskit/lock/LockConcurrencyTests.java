package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockTesting.fencedWrite;
import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion checked independently: a counter in Redis incremented by GET then SET is exact only if no
 * two holders overlap, and a fenced resource accepts every holder's write only if tokens strictly increase.
 */
class LockConcurrencyTests {

	private static final int THREADS = 64;

	private static final int ITERATIONS_PER_THREAD = 200;

	private static final int WORKER_THREADS = 16;

	private static final int WORKER_ITERATIONS = 500;

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofSeconds(10));

	RedisServerProcess server;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
	}

	@Test
	void sixtyFourThreadsAndASecondJvmNeverOverlap() throws Exception {
		Process worker = LockWorker.start("count", Integer.toString(this.server.port()), "counter-lock", "counter",
				"resource", Integer.toString(WORKER_THREADS), Integer.toString(WORKER_ITERATIONS));
		AtomicLong rejected = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try (LockRegistry factory = new LockRegistry(redis.connections())) {
			RedisLock lock = factory.getLock("counter-lock");
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = redis.connections().getConnection()) {
						for (int i = 0; i < ITERATIONS_PER_THREAD; i++) {
							lock.lock();
							try {
								unsafeIncrement(connection, "counter");
								if (!fencedWrite(redis.connections(), "resource", lock.fencingToken(), "local")) {
									rejected.incrementAndGet();
								}
							}
							finally {
								lock.unlock();
							}
						}
					}
				}));
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES);
			}
			assertThat(factory.heldLocks()).isEmpty();
		}
		finally {
			executor.shutdownNow();
		}
		String workerResult;
		try {
			// The worker ends itself within LockWorker.LIFETIME at the latest, so this read cannot hang.
			workerResult = readLine(worker, "done ");
			assertThat(worker.waitFor(1, TimeUnit.MINUTES)).isTrue();
		}
		finally {
			worker.destroyForcibly();
		}
		assertThat(workerResult).isEqualTo("done 0");
		assertThat(rejected.get()).isZero();
		long expected = (long) THREADS * ITERATIONS_PER_THREAD + (long) WORKER_THREADS * WORKER_ITERATIONS;
		assertThat(this.server.command("GET", "counter")).isEqualTo(Long.toString(expected));
		assertThat(this.server.command("EXISTS", "rk:lock:{counter-lock}")).isEqualTo(0L);
	}

	@Test
	void aKilledHolderJvmFreesTheLockWhenItsLeaseEnds() throws Exception {
		Process holder = LockWorker.start("hold", Integer.toString(this.server.port()), "killed", "1000");
		String held = readLine(holder, "held ");
		assertThat(held).startsWith("held ");
		long staleToken = Long.parseLong(held.substring(5));
		try (LockRegistry factory = new LockRegistry(redis.connections())) {
			RedisLock lock = factory.getLock("killed");
			assertThat(lock.tryLock()).isFalse();
			holder.destroyForcibly();
			assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
			// The watchdog died with the JVM: the lease (1 s) runs out and a waiter gets the lock.
			try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
				assertThat(lease.fencingToken()).isGreaterThan(staleToken);
			}
		}
	}

	@Test
	void aHolderJvmPausedPastItsLeaseLosesTheLockAndItsStaleWriteIsFenced() throws Exception {
		Process holder = LockWorker.start("stale", Integer.toString(this.server.port()), "paused", "1000", "ledger");
		try {
			String held = readLine(holder, "held ");
			assertThat(held).startsWith("held ");
			long staleToken = Long.parseLong(held.substring(5));
			signal(holder, "STOP");
			try (LockRegistry factory = new LockRegistry(redis.connections())) {
				// The paused holder's watchdog cannot renew: its 1 s lease runs out and this client gets the lock.
				try (Lease lease = factory.getLock("paused").acquire(Duration.ofSeconds(10))) {
					assertThat(lease.fencingToken()).isGreaterThan(staleToken);
					assertThat(fencedWrite(redis.connections(), "ledger", lease.fencingToken(), "new")).isTrue();
					signal(holder, "CONT");
					holder.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
					holder.getOutputStream().flush();
					assertThat(readLine(holder, "write=")).isEqualTo("write=false unlock=lost");
					assertThat(this.server.command("HGET", "rk:lock:{paused}", "f"))
						.isEqualTo(Long.toString(lease.fencingToken()));
				}
			}
			assertThat(this.server.command("HGET", "ledger", "value")).isEqualTo("new");
			assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	private static void signal(Process process, String signal) throws Exception {
		Process kill = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(process.pid())).start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).isZero();
	}

	@Test
	void scriptFlushUnderLoadFailsNothingAndAppliesNothingTwice() throws Exception {
		int threads = 16;
		int iterations = 200;
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong flushes = new AtomicLong();
		CountDownLatch started = new CountDownLatch(1);
		Thread flusher = new Thread(() -> {
			started.countDown();
			// Bounded: at most 2000 flushes, stopping as soon as the load ends.
			for (int i = 0; i < 2000 && running.get(); i++) {
				this.server.command("SCRIPT", "FLUSH");
				flushes.incrementAndGet();
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		flusher.start();
		started.await();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try (LockRegistry factory = new LockRegistry(redis.connections())) {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int id = t;
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = redis.connections().getConnection()) {
						RedisLock shared = factory.getLock("flushed");
						RedisLock own = factory.getLock("own", Integer.toString(id));
						for (int i = 0; i < iterations; i++) {
							shared.lock();
							own.lock();
							own.lock();
							try {
								unsafeIncrement(connection, "flush-counter");
							}
							finally {
								own.unlock();
								own.unlock();
								shared.unlock();
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			running.set(false);
			flusher.join();
			executor.shutdownNow();
		}
		assertThat(flushes.get()).isPositive();
		assertThat(this.server.command("GET", "flush-counter")).isEqualTo(Long.toString((long) threads * iterations));
		assertThat(this.server.command("KEYS", "rk:lock:{*}")).isEqualTo(List.of());
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

	/** Reads one line without buffering beyond it, so that later lines stay for the next call. */
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

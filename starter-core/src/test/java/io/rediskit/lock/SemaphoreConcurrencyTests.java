package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockTesting.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The semaphore's bound across JVMs, checked by an independent {@link PermitLog} on the server's clock: every
 * holder in both JVMs notes its hold (read from Redis {@code TIME} inside it) in a list, and the sweep over all of
 * them must never find more permits held than the total. A holder JVM killed with {@code kill -9} gives its permits
 * back when its lease ends, and no sooner: its hold counts in the sweep until the lease's end.
 */
class SemaphoreConcurrencyTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofSeconds(10));

	RedisServerProcess server;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
	}

	@Test
	void threadsOfTwoJvmsNeverHoldMoreThanTheTotal() throws Exception {
		int total = 3;
		Process worker = SemaphoreWorker.start("count", Integer.toString(this.server.port()), "report",
				Integer.toString(total), "8", "40");
		ExecutorService executor = Executors.newFixedThreadPool(8);
		try (SemaphoreRegistry registry = new SemaphoreRegistry(redis.connections())) {
			RedisSemaphore semaphore = registry.getSemaphore("report", total);
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int permits = 1 + (t % 2);
				tasks.add(executor.submit(() -> {
					for (int i = 0; i < 40; i++) {
						SemaphoreWorker.hold(redis.connections(), semaphore, permits);
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(2, TimeUnit.MINUTES);
			}
			// The worker ends itself within its lifetime at the latest, so this read cannot hang.
			assertThat(readLine(worker, "done")).isEqualTo("done");
			assertThat(worker.waitFor(1, TimeUnit.MINUTES)).isTrue();
		}
		finally {
			executor.shutdownNow();
			worker.destroyForcibly();
		}
		PermitLog log = intervals();
		assertThat(log.size()).isEqualTo(2 * 8 * 40);
		assertThat(log.violations(total)).isEmpty();
		assertThat(log.maxHeld()).as("holders were let in together").isGreaterThan(1);
		assertThat(this.server.command("EXISTS", "rk:semaphore:{report}")).as("holders left").isEqualTo(0L);
	}

	@Test
	void aKilledHolderJvmsPermitsComeBackWhenItsLeaseEnds() throws Exception {
		int total = 3;
		Process holder = SemaphoreWorker.start("hold", Integer.toString(this.server.port()), "killed",
				Integer.toString(total), "2", "1000");
		ExecutorService executor = Executors.newFixedThreadPool(4);
		AtomicBoolean running = new AtomicBoolean(true);
		try (SemaphoreRegistry registry = new SemaphoreRegistry(redis.connections())) {
			String held = readLine(holder, "held ");
			assertThat(held).startsWith("held ");
			String[] parts = held.split(" ");
			long staleToken = Long.parseLong(parts[1]);
			long staleEntered = Long.parseLong(parts[2]);
			RedisSemaphore semaphore = registry.getSemaphore("killed", total);
			assertThat(semaphore.availablePermits()).isEqualTo(1);
			// Holders of one permit keep coming while the killed JVM's two permits are still leased.
			List<Future<?>> hammers = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				hammers.add(executor.submit(() -> {
					for (int i = 0; i < 500 && running.get(); i++) {
						SemaphoreWorker.hold(redis.connections(), semaphore, 1);
					}
					return null;
				}));
			}
			holder.destroyForcibly();
			assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
			long leaseEnd = leaseEndMicros(staleToken);
			long killed = System.nanoTime();
			try (Lease all = semaphore.acquire(total, Duration.ofSeconds(20))) {
				// The watchdog died with the JVM: its lease (1 s) ran out and the permits came back.
				assertThat(all.fencingToken()).isGreaterThan(staleToken);
				assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(Duration.ofSeconds(15));
			}
			running.set(false);
			for (Future<?> hammer : hammers) {
				hammer.get(1, TimeUnit.MINUTES);
			}
			PermitLog log = intervals();
			log.record(staleEntered, leaseEnd, 2, staleToken);
			assertThat(log.size()).isGreaterThan(1);
			assertThat(log.violations(total)).isEmpty();
		}
		finally {
			running.set(false);
			executor.shutdownNow();
			holder.destroyForcibly();
		}
	}

	/** The end of the killed holder's lease, on the server's clock, found by its token in the state. */
	private long leaseEndMicros(long token) {
		try (RedisConnection connection = redis.connections().getConnection()) {
			Map<byte[], byte[]> state = connection.hashCommands().hGetAll(bytes("rk:semaphore:{killed}:state"));
			for (Map.Entry<byte[], byte[]> field : state.entrySet()) {
				if (new String(field.getValue(), StandardCharsets.UTF_8).equals("2:" + token)) {
					Double score = connection.zSetCommands().zScore(bytes("rk:semaphore:{killed}"), field.getKey());
					if (score != null) {
						return score.longValue() * 1000;
					}
				}
			}
		}
		// Already purged: the lease ended before now.
		try (RedisConnection connection = redis.connections().getConnection()) {
			return SemaphoreWorker.serverMicros(connection);
		}
	}

	private PermitLog intervals() {
		PermitLog log = new PermitLog();
		try (RedisConnection connection = redis.connections().getConnection()) {
			List<byte[]> entries = connection.listCommands().lRange(bytes(SemaphoreWorker.INTERVALS), 0, -1);
			for (byte[] entry : entries) {
				String[] fields = new String(entry, StandardCharsets.UTF_8).split(" ");
				log.record(Long.parseLong(fields[0]), Long.parseLong(fields[1]), Integer.parseInt(fields[2]),
						Long.parseLong(fields[3]));
			}
		}
		return log;
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

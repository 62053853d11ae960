package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A second JVM for the read-write and fair lock tests, started with {@link ProcessBuilder}.
 * <ul>
 * <li>{@code rw <port> <lock> <threads> <iterations>}: threads read and write (one in four) under the read-write
 * lock; inside each hold, counters in Redis that no lock guards check the hold: a writer must be alone, a reader
 * must see no writer. Prints {@code done <violations>}.</li>
 * <li>{@code fair-wait <port> <lock> <waiterTimeoutMillis>}: waits for the fair lock, printing {@code waiting}
 * first and {@code granted} should it get it; the test kills it while it waits.</li>
 * </ul>
 * Every worker ends itself after {@link LockWorker#LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class MemberLockWorker {

	private MemberLockWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("MemberLockWorker", LockWorker.LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		switch (args[0]) {
			case "rw" -> readWrite(connections, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
			case "fair-wait" -> fairWait(connections, args[2], Duration.ofMillis(Long.parseLong(args[3])));
			default -> throw new IllegalArgumentException(args[0]);
		}
		connections.destroy();
	}

	private static void readWrite(LettuceConnectionFactory connections, String name, int threads, int iterations)
			throws Exception {
		AtomicLong violations = new AtomicLong();
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try (ReadWriteLockRegistry registry = new ReadWriteLockRegistry(connections)) {
			ReadWriteLock lock = registry.getReadWriteLock(name);
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				tasks.add(executor.submit(() -> {
					try (RedisConnection connection = connections.getConnection()) {
						for (int i = 0; i < iterations; i++) {
							boolean write = (i + thread) % 4 == 0;
							RedisLock side = write ? lock.writeLock() : lock.readLock();
							side.lock();
							try {
								if (!checkInside(connection, write)) {
									violations.incrementAndGet();
								}
							}
							finally {
								side.unlock();
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
		System.out.println("done " + violations.get());
		System.out.flush();
	}

	/**
	 * The check inside a hold, on counters no lock guards: a writer enters alone, a reader beside no writer.
	 * @return whether the hold was as it must be
	 */
	static boolean checkInside(RedisConnection connection, boolean write) {
		byte[] mine = LockTesting.bytes(write ? "rw-writers-inside" : "rw-readers-inside");
		byte[] writers = LockTesting.bytes("rw-writers-inside");
		byte[] readers = LockTesting.bytes("rw-readers-inside");
		Long entered = connection.stringCommands().incr(mine);
		try {
			byte[] writing = connection.stringCommands().get(writers);
			byte[] reading = connection.stringCommands().get(readers);
			long writersInside = (writing != null) ? Long.parseLong(new String(writing)) : 0;
			long readersInside = (reading != null) ? Long.parseLong(new String(reading)) : 0;
			return write ? (entered != null && entered == 1 && readersInside == 0) : writersInside == 0;
		}
		finally {
			connection.stringCommands().decr(mine);
		}
	}

	private static void fairWait(LettuceConnectionFactory connections, String name, Duration waiterTimeout) {
		WaiterLineSpec spec = WaiterLineSpec.defaults().withWaiterTimeout(waiterTimeout)
			.withMaxPollInterval(Duration.ofMillis(200));
		try (FairLockRegistry registry = new FairLockRegistry(ScriptExecutor.of(connections), connections,
				KeyNaming.defaults(), spec, List.of(), Clock.systemUTC())) {
			System.out.println("waiting");
			System.out.flush();
			try (Lease lease = registry.getLock(name).acquire(Duration.ofSeconds(60))) {
				System.out.println("granted " + lease.fencingToken());
				System.out.flush();
			}
		}
	}

	/** Starts a worker, which ends itself after {@link LockWorker#LIFETIME} at the latest. */
	static Process start(String... args) throws java.io.IOException {
		return WorkerJvm.of(MemberLockWorker.class, args).lifetime(LockWorker.LIFETIME).start();
	}

}

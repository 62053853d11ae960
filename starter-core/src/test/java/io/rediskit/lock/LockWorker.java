package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * A second JVM for the lock tests, started with {@link ProcessBuilder}.
 * <ul>
 * <li>{@code count <port> <lock> <counter> <resource> <threads> <iterations>}: increments the counter under the
 * lock, with a fenced write each time; prints {@code done <rejected fenced writes>}.</li>
 * <li>{@code hold <port> <lock> <watchdogMillis>}: takes the lock, prints {@code held <token>} and waits to be
 * killed.</li>
 * <li>{@code stale <port> <lock> <watchdogMillis> <resource>}: takes the lock, prints {@code held <token>},
 * waits for a line on standard input (meanwhile the test pauses it past its lease), then makes a fenced write
 * and unlocks; prints {@code write=<accepted> unlock=<released|lost>}.</li>
 * <li>{@code redlock-count <port> <lock> <counter> <resource> <threads> <iterations> <node ports>}: as
 * {@code count}, under a {@link RedisLock} over the comma-separated node ports; counter and resource live on
 * {@code <port>}, a server that is none of the nodes.</li>
 * </ul>
 * Every worker ends itself after {@link #LIFETIME}, or as soon as the JVM that started it is gone
 * ({@link WorkerLifetime}).
 */
public final class LockWorker {

	/** The longest a worker lives; every test that starts one finishes well within it. */
	static final Duration LIFETIME = Duration.ofMinutes(3);

	private LockWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("LockWorker", LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		switch (args[0]) {
			case "count" -> count(connections, args);
			case "hold" -> hold(connections, args);
			case "stale" -> stale(connections, args);
			case "redlock-count" -> redlockCount(connections, args);
			default -> throw new IllegalArgumentException(args[0]);
		}
	}

	private static void count(LettuceConnectionFactory connections, String[] args) throws Exception {
		String counter = args[3];
		String resource = args[4];
		int threads = Integer.parseInt(args[5]);
		int iterations = Integer.parseInt(args[6]);
		AtomicLong rejected = new AtomicLong();
		try (LockRegistry factory = new LockRegistry(connections)) {
			RedisLock lock = factory.getLock(args[2]);
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					for (int i = 0; i < iterations; i++) {
						lock.lock();
						try (RedisConnection connection = connections.getConnection()) {
							LockTesting.unsafeIncrement(connection, counter);
							if (!LockTesting.fencedWrite(connections, resource, lock.fencingToken(), "worker")) {
								rejected.incrementAndGet();
							}
						}
						finally {
							lock.unlock();
						}
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join();
			}
		}
		System.out.println("done " + rejected.get());
		System.out.flush();
		connections.destroy();
	}

	private static void redlockCount(LettuceConnectionFactory connections, String[] args) throws Exception {
		String counter = args[3];
		String resource = args[4];
		int threads = Integer.parseInt(args[5]);
		int iterations = Integer.parseInt(args[6]);
		List<LettuceConnectionFactory> nodes = new ArrayList<>();
		for (String port : args[7].split(",")) {
			LettuceConnectionFactory node = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(port)),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			node.afterPropertiesSet();
			node.start();
			nodes.add(node);
		}
		AtomicLong rejected = new AtomicLong();
		try (RedlockRegistry registry = new RedlockRegistry(nodes, KeyNaming.defaults(), RedlockTesting.spec(),
				List.of(), java.time.Clock.systemUTC())) {
			RedisLock lock = registry.getLock(args[2]);
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Thread worker = new Thread(() -> {
					AtomicLong outages = new AtomicLong();
					for (int i = 0; i < iterations; i++) {
						RedlockConcurrencyTests.lockThroughOutages(lock, outages);
						try (RedisConnection connection = connections.getConnection()) {
							LockTesting.unsafeIncrement(connection, counter);
							if (!LockTesting.fencedWrite(connections, resource, lock.fencingToken(), "worker")) {
								rejected.incrementAndGet();
							}
						}
						finally {
							RedlockConcurrencyTests.unlockThroughOutages(lock, outages);
						}
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join();
			}
		}
		System.out.println("done " + rejected.get());
		System.out.flush();
		nodes.forEach(LettuceConnectionFactory::destroy);
		connections.destroy();
	}

	private static void hold(LettuceConnectionFactory connections, String[] args) throws Exception {
		LockSpec settings = LockSpec.defaults()
			.withWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])));
		LockRegistry factory = new LockRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				settings, List.of(), java.time.Clock.systemUTC());
		RedisLock lock = factory.getLock(args[2]);
		lock.lock();
		System.out.println("held " + lock.fencingToken());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

	private static void stale(LettuceConnectionFactory connections, String[] args) throws Exception {
		LockSpec settings = LockSpec.defaults()
			.withWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[3])));
		try (LockRegistry factory = new LockRegistry(ScriptExecutor.of(connections), connections, KeyNaming.defaults(),
				settings, List.of(), java.time.Clock.systemUTC())) {
			RedisLock lock = factory.getLock(args[2]);
			lock.lock();
			long token = lock.fencingToken();
			System.out.println("held " + token);
			System.out.flush();
			new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
			boolean accepted = LockTesting.fencedWrite(connections, args[4], token, "stale");
			String unlock;
			try {
				lock.unlock();
				unlock = "released";
			}
			catch (LockLeaseLostException ex) {
				unlock = "lost";
			}
			System.out.println("write=" + accepted + " unlock=" + unlock);
			System.out.flush();
		}
		connections.destroy();
	}

	/** Starts a worker, which ends itself after {@link #LIFETIME} at the latest. */
	static Process start(String... args) throws java.io.IOException {
		return WorkerJvm.of(LockWorker.class, args).lifetime(LIFETIME).start();
	}

	static String key(String name) {
		return KeyNaming.defaults().key("lock", name);
	}

}

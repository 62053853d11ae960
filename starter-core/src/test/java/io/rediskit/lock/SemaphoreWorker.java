package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A second JVM for the semaphore tests, started with {@link ProcessBuilder}.
 * <ul>
 * <li>{@code count <port> <semaphore> <total> <threads> <iterations>}: each thread takes 1 or 2 permits at a time
 * and notes its hold in the {@code intervals} list ({@link #hold}); prints {@code done}.</li>
 * <li>{@code hold <port> <semaphore> <total> <permits> <watchdogMillis>}: takes the permits, prints
 * {@code held <token> <entered, server µs>} and waits to be killed.</li>
 * </ul>
 * Every worker ends itself after {@link LockWorker#LIFETIME}, or as soon as the JVM that started it is gone.
 */
public final class SemaphoreWorker {

	/** The list every holder notes its hold in: {@code <entered µs> <left µs> <permits> <token>}. */
	static final String INTERVALS = "intervals";

	private SemaphoreWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("SemaphoreWorker", LockWorker.LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[1])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		switch (args[0]) {
			case "count" -> count(connections, args);
			case "hold" -> hold(connections, args);
			default -> throw new IllegalArgumentException(args[0]);
		}
	}

	private static void count(LettuceConnectionFactory connections, String[] args) throws Exception {
		int total = Integer.parseInt(args[3]);
		int threads = Integer.parseInt(args[4]);
		int iterations = Integer.parseInt(args[5]);
		try (SemaphoreRegistry registry = new SemaphoreRegistry(connections)) {
			RedisSemaphore semaphore = registry.getSemaphore(args[2], total);
			List<Thread> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int permits = 1 + (t % 2);
				Thread worker = new Thread(() -> {
					for (int i = 0; i < iterations; i++) {
						hold(connections, semaphore, permits);
					}
				});
				workers.add(worker);
				worker.start();
			}
			for (Thread worker : workers) {
				worker.join();
			}
		}
		System.out.println("done");
		System.out.flush();
		connections.destroy();
	}

	/** Takes permits and notes the hold, on the server's clock, inside it. */
	static void hold(RedisConnectionFactory connections, RedisSemaphore semaphore, int permits) {
		try (Lease lease = semaphore.acquire(permits, Duration.ofSeconds(60));
				RedisConnection connection = connections.getConnection()) {
			long entered = serverMicros(connection);
			long left = serverMicros(connection);
			connection.listCommands().rPush(LockTesting.bytes(INTERVALS),
					LockTesting.bytes(entered + " " + left + " " + permits + " " + lease.fencingToken()));
		}
	}

	static long serverMicros(RedisConnection connection) {
		return connection.serverCommands().time(java.util.concurrent.TimeUnit.MICROSECONDS);
	}

	private static void hold(LettuceConnectionFactory connections, String[] args) throws Exception {
		LockSpec spec = LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[5])));
		SemaphoreRegistry registry = new SemaphoreRegistry(ScriptExecutor.of(connections), connections,
				KeyNaming.defaults(), spec, List.of(), Clock.systemUTC());
		Lease lease = registry.getSemaphore(args[2], Integer.parseInt(args[3])).acquire(Integer.parseInt(args[4]),
				Duration.ZERO);
		long entered;
		try (RedisConnection connection = connections.getConnection()) {
			entered = serverMicros(connection);
		}
		System.out.println("held " + lease.fencingToken() + " " + entered);
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

	/** Starts a worker, which ends itself after {@link LockWorker#LIFETIME} at the latest. */
	static Process start(String... args) throws java.io.IOException {
		return WorkerJvm.of(SemaphoreWorker.class, args).lifetime(LockWorker.LIFETIME).start();
	}

}

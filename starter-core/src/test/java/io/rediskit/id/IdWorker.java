package io.rediskit.id;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.time.Duration;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.WorkerJvm;
import io.rediskit.testsupport.WorkerLifetime;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A worker JVM for the id tests, started with {@link ProcessBuilder}:
 * {@code <port> <generator> <blockSize> <threads> <idsPerThread> <file>} takes ids from its own registry (its own
 * blocks) on several threads and writes them to {@code file}, thread after thread: the number of threads, then per
 * thread its count and its ids in the order it got them ({@code long}s). Prints {@code done} when written. It ends
 * itself after {@link #LIFETIME}, or as soon as the JVM that started it is gone ({@link WorkerLifetime}).
 */
public final class IdWorker {

	/** The longest a worker lives; every test that starts one finishes well within it. */
	static final Duration LIFETIME = Duration.ofMinutes(3);

	private IdWorker() {
	}

	public static void main(String[] args) throws Exception {
		WorkerLifetime.haltWhenOverdueOrOrphaned("IdWorker", LIFETIME);
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		IdGenerator ids = new IdGeneratorRegistry(CommandExecutor.of(connections), KeyNaming.defaults(),
				(name) -> null).create(args[1], IdGeneratorSpec.ofBlockSize(Integer.parseInt(args[2])));
		long[][] seen = IdGeneratorConcurrencyTests.take(ids, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
		try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(args[5])))) {
			out.writeInt(seen.length);
			for (long[] thread : seen) {
				out.writeInt(thread.length);
				for (long id : thread) {
					out.writeLong(id);
				}
			}
		}
		System.out.println("done");
		System.out.flush();
		connections.destroy();
	}

	/** Starts a worker, which ends itself after {@link #LIFETIME} at the latest. */
	static Process start(String... args) throws java.io.IOException {
		return WorkerJvm.of(IdWorker.class, args).lifetime(LIFETIME).start();
	}

}

package io.rediskit.id;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads in this JVM and in two worker JVMs ({@link IdWorker}), each with its own registry and blocks, and
 * "restarts" (new registries on the same counter): the independent {@link IdChecker} finds no id handed out twice
 * and every thread's ids increasing.
 */
class IdGeneratorConcurrencyTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	static final int THREADS = 16;

	static final int PER_THREAD = 5_000;

	@Test
	void noDuplicatesAcrossThreadsJvmsAndRestarts(@TempDir Path temp) throws Exception {
		String port = Integer.toString(redis.server().port());
		Path first = temp.resolve("worker-1.ids");
		Path second = temp.resolve("worker-2.ids");
		// Small blocks: many reservations race with each other and with the local threads.
		Process worker1 = IdWorker.start(port, "orders", "37", "8", Integer.toString(PER_THREAD), first.toString());
		Process worker2 = IdWorker.start(port, "orders", "1000", "8", Integer.toString(PER_THREAD), second.toString());
		List<long[]> sources = new ArrayList<>();
		try {
			var connections = io.rediskit.support.TestConnections.lettuce(redis.server(), java.time.Duration.ofSeconds(10));
			try {
				for (int restart = 0; restart < 3; restart++) {
					IdGenerator ids = new IdGeneratorRegistry(CommandExecutor.of(connections), KeyNaming.defaults(),
							(name) -> null).create("orders", IdGeneratorSpec.ofBlockSize(1 + restart * 50));
					sources.addAll(List.of(take(ids, THREADS, PER_THREAD / 5)));
					sources.addAll(List.of(takeAsync(ids, 5_000)));
				}
			}
			finally {
				connections.destroy();
			}
			// Each worker ends itself within IdWorker.LIFETIME at the latest, so these reads cannot hang.
			assertThat(readLine(worker1)).isEqualTo("done");
			assertThat(readLine(worker2)).isEqualTo("done");
			assertThat(worker1.waitFor(1, TimeUnit.MINUTES)).isTrue();
			assertThat(worker2.waitFor(1, TimeUnit.MINUTES)).isTrue();
		}
		finally {
			worker1.destroyForcibly();
			worker2.destroyForcibly();
		}
		sources.addAll(read(first));
		sources.addAll(read(second));
		long total = sources.stream().mapToLong((ids) -> ids.length).sum();
		assertThat(total).isEqualTo(2L * 8 * PER_THREAD + 3L * (THREADS * (PER_THREAD / 5) + 5_000));
		assertThat(IdChecker.duplicates(sources)).isEmpty();
		assertThat(IdChecker.notIncreasing(sources)).isEmpty();
		System.out.printf("Ids: %,d from 2 worker JVMs and 3 registries in this one, no duplicates%n", total);
	}

	/** Takes ids on {@code threads} threads; the ids of each thread in the order it got them. */
	static long[][] take(IdGenerator ids, int threads, int perThread) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<long[]>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					long[] seen = new long[perThread];
					for (int i = 0; i < perThread; i++) {
						seen[i] = ids.next();
					}
					return seen;
				}));
			}
			long[][] all = new long[threads][];
			for (int t = 0; t < threads; t++) {
				all[t] = futures.get(t).get(2, TimeUnit.MINUTES);
			}
			return all;
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** Takes ids asynchronously, all requests at once; each reply is its own source. */
	private static long[][] takeAsync(IdGenerator ids, int count) throws Exception {
		List<CompletableFuture<Long>> futures = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			futures.add(ids.nextAsync().toCompletableFuture());
		}
		long[] all = new long[count];
		for (int i = 0; i < count; i++) {
			all[i] = futures.get(i).get(1, TimeUnit.MINUTES);
		}
		// Replies complete in any order: one source per id, so only uniqueness is checked for them.
		long[][] sources = new long[count][];
		for (int i = 0; i < count; i++) {
			sources[i] = new long[] { all[i] };
		}
		return sources;
	}

	private static List<long[]> read(Path file) throws Exception {
		List<long[]> sources = new ArrayList<>();
		try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file.toFile())))) {
			int threads = in.readInt();
			for (int t = 0; t < threads; t++) {
				long[] ids = new long[in.readInt()];
				for (int i = 0; i < ids.length; i++) {
					ids[i] = in.readLong();
				}
				sources.add(ids);
			}
		}
		assertThat(Files.size(file)).isPositive();
		return sources;
	}

	private static String readLine(Process worker) throws Exception {
		BufferedReader reader = new BufferedReader(new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8));
		return reader.readLine();
	}

}

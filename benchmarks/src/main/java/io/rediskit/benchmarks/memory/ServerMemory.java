package io.rediskit.benchmarks.memory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.keys.DeleteOptions;
import io.rediskit.keys.KeyScanOptions;
import io.rediskit.keys.KeyTools;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the server holds, read on a connection of its own: the growth of {@code used_memory} over a piece of work,
 * the exact size of keys, the entries of sorted sets, and the clean-up after a scenario. Shared by the
 * {@code memory} benchmark and the cost curves, so that both count bytes the same way.
 */
public final class ServerMemory {

	private final BenchmarkContext context;

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final KeyTools keys;

	/**
	 * @param context the run
	 * @param connection a connection of its own for {@code INFO} and {@code MEMORY USAGE}; the caller closes it
	 */
	public ServerMemory(BenchmarkContext context, StatefulRedisConnection<byte[], byte[]> connection) {
		this.context = context;
		this.connection = connection;
		this.keys = new KeyTools((LettuceConnectionFactory) context.connectionFactory(), List.of());
	}

	/**
	 * Runs work and divides the growth of the server's memory by its units.
	 * @param units what the work added, such as messages
	 * @param work the work, done when it returns
	 * @return bytes per unit
	 */
	public double perUnit(long units, Runnable work) {
		settle();
		long before = usedMemory();
		work.run();
		long after = usedMemory();
		return (after - before) / (double) units;
	}

	/**
	 * {@code used_memory} less the clients' buffers ({@code mem_clients_normal}): a pipelined fill grows the
	 * server's query buffers, which shrink again later and would be counted against the next scenario. Waits for
	 * memory freed in the background first.
	 * @return bytes
	 */
	public long usedMemory() {
		settle();
		String info = this.connection.sync().info("memory");
		return field(info, "used_memory") - field(info, "mem_clients_normal");
	}

	/**
	 * The exact size of the matching keys by {@code MEMORY USAGE key SAMPLES 0} (the key, its value and its
	 * entry in the key space): per key, unlike {@code used_memory}, it is not blurred by the key space's own
	 * tables growing as keys are added.
	 * @param pattern a {@code SCAN MATCH} glob
	 * @return bytes over every matching key
	 */
	public long keyBytes(String pattern) {
		List<RedisFuture<Long>> sizes = new ArrayList<>();
		this.keys.scan(KeyScanOptions.matching(pattern).withBatchSize(1000)).forEachRemaining((key) -> sizes.add(
				this.connection.async().dispatch(CommandType.MEMORY, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
						new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE")
							.addKey(key.getBytes(StandardCharsets.UTF_8))
							.add("SAMPLES")
							.add(0))));
		return sum(sizes);
	}

	/**
	 * The entries of the matching sorted sets: what a log (the sliding log, Redisson's permits) keeps per call.
	 * @param pattern a {@code SCAN MATCH} glob
	 * @return {@code ZCARD} summed over every matching sorted set
	 */
	public long sortedSetEntries(String pattern) {
		List<RedisFuture<Long>> counts = new ArrayList<>();
		this.keys.scan(KeyScanOptions.matching(pattern).withType("zset").withBatchSize(1000))
			.forEachRemaining((key) -> counts.add(this.connection.async().zcard(key.getBytes(StandardCharsets.UTF_8))));
		return sum(counts);
	}

	/**
	 * Deletes every key under a prefix, in batches that never block the server.
	 * @param prefix the prefix, without glob characters
	 */
	public void clean(String prefix) {
		this.keys.deleteByPattern(KeyScanOptions.matching(prefix + "*"), DeleteOptions.defaults());
		this.context.progress("deleted " + prefix + "*");
	}

	private static long sum(List<RedisFuture<Long>> replies) {
		long total = 0;
		for (RedisFuture<Long> reply : replies) {
			total += reply.toCompletableFuture().join();
		}
		return total;
	}

	/** Waits (at most 60 s) until memory freed in the background after an earlier scenario is gone. */
	private void settle() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (field(this.connection.sync().info("memory"), "lazyfree_pending_objects") > 0
				&& System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
	}

	private static long field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + ":")) {
				return Long.parseLong(line.substring(name.length() + 1).trim());
			}
		}
		throw new IllegalStateException("INFO memory has no " + name);
	}

}

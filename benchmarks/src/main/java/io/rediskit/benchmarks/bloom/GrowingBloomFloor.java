package io.rediskit.benchmarks.bloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;

/**
 * The floor of a growing filter: bare Lettuce running redis-kit's own {@code grow_add.lua} and
 * {@code grow_contains.lua} by {@code EVALSHA} on the filter's keys, one item per call, with the arguments redis-kit
 * sends: the stored sizing, the layers' capacities and hashes, and the item's offsets in every layer it knows of
 * (and, for an add, the next layer when the newest may fill: the same hint from the last add's reply). The work
 * is the script's (every layer asked, the newest written); this measures the rest of redis-kit's path against it.
 * <p>
 * What it leaves out: the 128-bit MurmurHash3 of each item (here a 64-bit mix of {@code String.hashCode}), the
 * sizing string built on the client (read once from the filter's record), the reading of the reply into flags
 * beyond the one it needs, the completion stages, the {@code NOSCRIPT} fallback and the listeners.
 */
final class GrowingBloomFloor {

	private static final String SCRIPTS = "META-INF/redis-kit/scripts/bloom/";

	private final RedisCommands<byte[], byte[]> commands;

	private final byte[] recordKey;

	private final byte[][] layerKeys;

	private final byte[] sizing;

	private final long[] capacity;

	private final long[] bits;

	private final int[] hashes;

	private final String addSha;

	private final String containsSha;

	private final AtomicInteger knownLayers;

	private final AtomicLong knownCount = new AtomicLong();

	/**
	 * @param connection the connection every call goes through; the caller closes it
	 * @param recordKey the growing filter's record, which must exist
	 * @param layerKeys the keys of its layers, {@code growth.maxLayers()} of them
	 * @param spec the filter's spec
	 * @param growth its growth
	 */
	GrowingBloomFloor(StatefulRedisConnection<byte[], byte[]> connection, String recordKey, List<String> layerKeys,
			BloomFilterSpec spec, BloomGrowth growth) {
		this.commands = connection.sync();
		this.recordKey = utf8(recordKey);
		this.layerKeys = layerKeys.stream().map(GrowingBloomFloor::utf8).toArray(byte[][]::new);
		this.sizing = this.commands.hget(this.recordKey, utf8("sizing"));
		this.knownLayers = new AtomicInteger(Integer.parseInt(
				new String(this.commands.hget(this.recordKey, utf8("layers")), StandardCharsets.US_ASCII)));
		int layers = growth.maxLayers();
		this.capacity = new long[layers];
		this.bits = new long[layers];
		this.hashes = new int[layers];
		// The layers' sizing by the formulas BloomGrowth documents: n f^i items at p (1 - r) r^i.
		for (int i = 0; i < layers; i++) {
			this.capacity[i] = (long) (spec.expectedInsertions() * Math.pow(growth.factor(), i));
			double rate = spec.falsePositiveRate() * (1 - growth.tightening()) * Math.pow(growth.tightening(), i);
			this.bits[i] = (long) Math.ceil(-this.capacity[i] * Math.log(rate) / (Math.log(2) * Math.log(2)));
			this.hashes[i] = (int) Math.max(1, Math.round((double) this.bits[i] / this.capacity[i] * Math.log(2)));
		}
		this.addSha = this.commands.scriptLoad(script("grow_add.lua"));
		this.containsSha = this.commands.scriptLoad(script("grow_contains.lua"));
	}

	boolean add(String item) {
		while (true) {
			int known = this.knownLayers.get();
			boolean room = this.knownCount.get() + 1 < this.capacity[known - 1];
			int sent = Math.min(this.capacity.length, room ? known : known + 1);
			long[] offsets = offsets(item, sent);
			byte[][] args = new byte[5 + 2 * sent + offsets.length][];
			int at = 0;
			args[at++] = this.sizing;
			args[at++] = number(0);
			args[at++] = number(sent);
			args[at++] = number(1);
			args[at++] = number(this.capacity.length);
			for (int i = 0; i < sent; i++) {
				args[at++] = number(this.capacity[i]);
			}
			for (int i = 0; i < sent; i++) {
				args[at++] = number(this.hashes[i]);
			}
			for (long offset : offsets) {
				args[at++] = number(offset);
			}
			List<Object> reply = this.commands.evalsha(this.addSha, ScriptOutputType.MULTI, keys(sent), args);
			long status = (Long) reply.get(0);
			this.knownLayers.accumulateAndGet(((Long) reply.get(1)).intValue(), Math::max);
			this.knownCount.set((Long) reply.get(2));
			if (status == 1) {
				return (Long) reply.get(3) == 1;
			}
			if (status != -1) {
				throw new IllegalStateException("Growing filter floor: the add script answered " + reply);
			}
		}
	}

	boolean mightContain(String item) {
		while (true) {
			int sent = this.knownLayers.get();
			long[] offsets = offsets(item, sent);
			byte[][] args = new byte[3 + sent + offsets.length][];
			int at = 0;
			args[at++] = this.sizing;
			args[at++] = number(sent);
			args[at++] = number(1);
			for (int i = 0; i < sent; i++) {
				args[at++] = number(this.hashes[i]);
			}
			for (long offset : offsets) {
				args[at++] = number(offset);
			}
			List<Object> reply = this.commands.evalsha(this.containsSha, ScriptOutputType.MULTI, keys(sent), args);
			this.knownLayers.accumulateAndGet(((Long) reply.get(1)).intValue(), Math::max);
			if ((Long) reply.get(0) == 1) {
				return (Long) reply.get(2) == 1;
			}
		}
	}

	private byte[][] keys(int layers) {
		byte[][] keys = new byte[1 + layers][];
		keys[0] = this.recordKey;
		System.arraycopy(this.layerKeys, 0, keys, 1, layers);
		return keys;
	}

	/** Per layer, double hashing over a 64-bit mix of the item's hash code. */
	private long[] offsets(String item, int layers) {
		long hash = FloorHash.of(item);
		int total = 0;
		for (int i = 0; i < layers; i++) {
			total += this.hashes[i];
		}
		long[] offsets = new long[total];
		int at = 0;
		for (int layer = 0; layer < layers; layer++) {
			for (int i = 0; i < this.hashes[layer]; i++) {
				offsets[at++] = FloorHash.position(hash, i, this.bits[layer]);
			}
		}
		return offsets;
	}

	private static String script(String name) {
		try (InputStream in = GrowingBloomFloor.class.getClassLoader().getResourceAsStream(SCRIPTS + name)) {
			if (in == null) {
				throw new IllegalStateException("No " + SCRIPTS + name + " on the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

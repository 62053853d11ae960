package io.rediskit.benchmarks.bloom;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.BitFieldArgs;
import io.lettuce.core.BitFieldArgs.BitFieldType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor of a Bloom filter on plain Redis: bare Lettuce sending one {@code BITFIELD} per call with the bits of
 * every item of the call ({@code SET u1 <offset> 1} to add, {@code GET u1 <offset>} to look up), on one connection
 * all threads share, with the same number of bits and hashes as redis-kit's filter. It has none of what redis-kit
 * adds: no sizing header read or written, no TTL, no script (redis-kit's first add to a shard, and every add of a
 * filter with a TTL, goes through a script that writes the header when the shard is new; later adds are one plain
 * {@code BITFIELD} that also reads the header), a cheap 64-bit hash instead of a 128-bit one. What redis-kit's
 * figure loses against this one is the price of those.
 */
final class BloomFloor {

	private static final BitFieldType BIT = BitFieldArgs.unsigned(1);

	private final RedisCommands<byte[], byte[]> commands;

	private final byte[] key;

	private final long bits;

	private final int hashes;

	/**
	 * @param connection the connection every call goes through; the caller closes it
	 * @param key the floor's own key
	 * @param bits the filter's bits, as redis-kit sized it
	 * @param hashes the filter's hashes
	 */
	BloomFloor(StatefulRedisConnection<byte[], byte[]> connection, String key, long bits, int hashes) {
		this.commands = connection.sync();
		this.key = key.getBytes(StandardCharsets.UTF_8);
		this.bits = bits;
		this.hashes = hashes;
	}

	boolean add(String item) {
		return addAll(List.of(item)).get(0);
	}

	boolean mightContain(String item) {
		return mightContainAll(List.of(item)).get(0);
	}

	List<Boolean> addAll(List<String> items) {
		BitFieldArgs args = new BitFieldArgs();
		for (String item : items) {
			for (long offset : offsets(item)) {
				args.set(BIT, (int) offset, 1);
			}
		}
		// An item is new when one of its bits was unset.
		return answer(this.commands.bitfield(this.key, args), items.size(), 0L);
	}

	List<Boolean> mightContainAll(List<String> items) {
		BitFieldArgs args = new BitFieldArgs();
		for (String item : items) {
			for (long offset : offsets(item)) {
				args.get(BIT, (int) offset);
			}
		}
		// An item is (probably) there when none of its bits is unset.
		List<Boolean> unset = answer(this.commands.bitfield(this.key, args), items.size(), 0L);
		return unset.stream().map((any) -> !any).toList();
	}

	void delete() {
		this.commands.del(this.key);
	}

	/** Per item, whether one of its bits read {@code value}. */
	private List<Boolean> answer(List<Long> replies, int items, long value) {
		List<Boolean> answers = new ArrayList<>(items);
		for (int item = 0; item < items; item++) {
			boolean any = false;
			for (int i = 0; i < this.hashes; i++) {
				Long reply = replies.get(item * this.hashes + i);
				any |= (reply != null && reply == value);
			}
			answers.add(any);
		}
		return answers;
	}

	/** Double hashing over a 64-bit mix of the item's hash code. */
	private long[] offsets(String item) {
		long hash = mix(item.hashCode());
		long h1 = hash >>> 32;
		long h2 = hash & 0xffffffffL;
		long[] offsets = new long[this.hashes];
		for (int i = 0; i < this.hashes; i++) {
			offsets[i] = Math.floorMod(h1 + i * h2, this.bits);
		}
		return offsets;
	}

	private static long mix(long value) {
		long z = value * 0x9E3779B97F4A7C15L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
		return z ^ (z >>> 31);
	}

}

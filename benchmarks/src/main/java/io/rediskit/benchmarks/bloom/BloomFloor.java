package io.rediskit.benchmarks.bloom;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

/**
 * The floor of a Bloom filter of one shard on plain Redis: bare Lettuce sending the commands redis-kit's
 * {@code BloomFilter} sends for the same work, on one connection all threads share. An add is
 * {@code BITFIELD key GET i64 0 GET u16 64 GET u16 80 GET u32 96 SET u1 <offset> 1...} and a lookup
 * {@code BITFIELD_RO key} with the same four header reads and {@code GET u1 <offset>} per bit: the same header,
 * the same offsets (after the 128-bit header), the same number of hashes. A batch goes as calls of
 * {@value #ITEMS_PER_CALL} items (redis-kit's {@code ITEMS_PER_PLAIN_CALL}), all sent before the first reply is
 * awaited, as redis-kit pipelines them.
 * <p>
 * What it leaves out, and what redis-kit's figure pays for against it: the check of the header it reads (redis-kit
 * compares it with the filter's sizing), the add script that creates a shard with its header (run once per shard
 * and handle, so not in the measured window), the 128-bit MurmurHash3 of each item (here a 64-bit mix of
 * {@code String.hashCode}), the grouping by shard, the completion stages and the listeners. Its key is allocated at
 * its full length when the floor is made, as redis-kit's shard is when it is created, so neither string grows
 * while it is measured.
 */
final class BloomFloor {

	/** Items per {@code BITFIELD}, as redis-kit's {@code RedisBloomFilter.ITEMS_PER_PLAIN_CALL}. */
	static final int ITEMS_PER_CALL = 100;

	/** Bits of redis-kit's sizing header at the start of a shard. */
	private static final int HEADER_BITS = 128;

	private static final int HEADER_FIELDS = 4;

	private static final ProtocolKeyword BITFIELD = keyword("BITFIELD");

	private static final ProtocolKeyword BITFIELD_RO = keyword("BITFIELD_RO");

	private static final byte[] GET = ascii("GET");

	private static final byte[] SET = ascii("SET");

	private static final byte[] U1 = ascii("u1");

	private static final byte[] ONE = ascii("1");

	private static final byte[][] HEADER = { GET, ascii("i64"), ascii("0"), GET, ascii("u16"), ascii("64"), GET,
			ascii("u16"), ascii("80"), GET, ascii("u32"), ascii("96") };

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final byte[] key;

	private final long bits;

	private final int hashes;

	private final int perCall;

	/**
	 * @param connection the connection every call goes through; the caller closes it
	 * @param key the floor's own key
	 * @param bits the filter's bits, as redis-kit sized it (one shard)
	 * @param hashes the filter's hashes
	 */
	BloomFloor(StatefulRedisConnection<byte[], byte[]> connection, String key, long bits, int hashes) {
		this(connection, key, bits, hashes, ITEMS_PER_CALL);
	}

	BloomFloor(StatefulRedisConnection<byte[], byte[]> connection, String key, long bits, int hashes, int perCall) {
		this.connection = connection;
		this.commands = connection.async();
		this.key = key.getBytes(StandardCharsets.UTF_8);
		this.bits = bits;
		this.hashes = hashes;
		this.perCall = perCall;
		connection.sync().setbit(this.key, HEADER_BITS + bits - 1, 0);
	}

	boolean add(String item) {
		return addAll(List.of(item)).get(0);
	}

	boolean mightContain(String item) {
		return mightContainAll(List.of(item)).get(0);
	}

	List<Boolean> addAll(List<String> items) {
		// An item is new when one of its bits was unset.
		return send(BITFIELD, items, true);
	}

	List<Boolean> mightContainAll(List<String> items) {
		// An item is (probably) there when none of its bits is unset.
		return send(BITFIELD_RO, items, false).stream().map((unset) -> !unset).toList();
	}

	void delete() {
		this.connection.sync().del(this.key);
	}

	/** Per item, whether one of its bits read 0: every call of the batch sent, then every reply read. */
	private List<Boolean> send(ProtocolKeyword command, List<String> items, boolean set) {
		List<RedisFuture<List<Object>>> replies = new ArrayList<>();
		for (int first = 0; first < items.size(); first += this.perCall) {
			CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(this.key);
			for (byte[] header : HEADER) {
				args.add(header);
			}
			for (String item : items.subList(first, Math.min(items.size(), first + this.perCall))) {
				for (long offset : offsets(item)) {
					args.add(set ? SET : GET).add(U1).add(ascii(Long.toString(offset)));
					if (set) {
						args.add(ONE);
					}
				}
			}
			replies.add(this.commands.dispatch(command, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE), args));
		}
		List<Boolean> answers = new ArrayList<>(items.size());
		for (RedisFuture<List<Object>> reply : replies) {
			List<Object> values = LettuceFutures.awaitOrCancel(reply, 60, TimeUnit.SECONDS);
			for (int at = HEADER_FIELDS; at < values.size(); at += this.hashes) {
				boolean unset = false;
				for (int i = 0; i < this.hashes; i++) {
					unset |= (Long) values.get(at + i) == 0;
				}
				answers.add(unset);
			}
		}
		return answers;
	}

	/** Double hashing over a 64-bit mix of the item's hash code, after the header. */
	private long[] offsets(String item) {
		long hash = FloorHash.of(item);
		long[] offsets = new long[this.hashes];
		for (int i = 0; i < this.hashes; i++) {
			offsets[i] = HEADER_BITS + FloorHash.position(hash, i, this.bits);
		}
		return offsets;
	}

	private static ProtocolKeyword keyword(String name) {
		byte[] bytes = ascii(name);
		return new ProtocolKeyword() {

			@Override
			public byte[] getBytes() {
				return bytes;
			}

			@Override
			public String toString() {
				return name;
			}

		};
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}

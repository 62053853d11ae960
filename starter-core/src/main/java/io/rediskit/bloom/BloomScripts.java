package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The bitmap filter's Redis calls, one method per operation with the reading of its reply: the {@code add}
 * script, the {@code check} script (a lookup that also reads the completeness mark), the plain {@code BITFIELD} add to a shard known to exist, the {@code BITFIELD_RO} lookup, the {@code BITCOUNT} of {@code info()}, the header check of a sharded
 * filter.
 */
final class BloomScripts {

	static final LuaScript ADD = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/add.lua");

	static final LuaScript CHECK = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/check.lua");

	static final String LOOKUP = "BITFIELD_RO";

	static final String SET_BITS = "BITFIELD";

	static final String COUNT = "BITCOUNT";

	private static final byte[] GET = ascii("GET");

	private static final byte[] U1 = ascii("u1");

	private static final byte[] SET = ascii("SET");

	private static final byte[] ONE = ascii("1");

	// The header as the add script writes it: i64 bits at 0, u16 hashes at 64, u16 shards at 80, u32 magic at 96.
	private static final byte[][] HEADER = { GET, ascii("i64"), ascii("0"), GET, ascii("u16"), ascii("64"), GET,
			ascii("u16"), ascii("80"), GET, ascii("u32"), ascii("96") };

	private static final int HEADER_FIELDS = 4;

	// BITCOUNT's range is in bytes: the bits start after the 16-byte header.
	private static final byte[][] BITS_RANGE = { ascii(Integer.toString(BloomLayout.HEADER_BITS / 8)), ascii("-1") };

	private BloomScripts() {
	}

	/**
	 * The keys and arguments of the {@code add} script for one shard: the sizing, then {@code SET u1 <offset> 1}
	 * per bit, built here so that the script only unpacks them.
	 * @param key the shard's key
	 * @param mark the shard's completeness mark, deleted when the script creates the shard anew
	 * @param layout the filter's layout
	 * @param ttlMillis the filter's TTL, 0 for none
	 * @param token a seeding's token to write to the mark, empty for none
	 * @param offsets the items' bit offsets, {@code hashes} per item
	 * @return the two keys, then the arguments
	 */
	static byte[][] add(byte[] key, byte[] mark, BloomLayout layout, long ttlMillis, byte[] token, long[] offsets) {
		byte[][] keysAndArgs = new byte[8 + 4 * offsets.length][];
		keysAndArgs[0] = key;
		keysAndArgs[1] = mark;
		keysAndArgs[2] = number(layout.bits());
		keysAndArgs[3] = number(layout.hashes());
		keysAndArgs[4] = number(layout.shards());
		keysAndArgs[5] = number(BloomLayout.MAGIC);
		keysAndArgs[6] = number(ttlMillis);
		keysAndArgs[7] = token;
		int at = 8;
		for (long offset : offsets) {
			keysAndArgs[at++] = SET;
			keysAndArgs[at++] = U1;
			keysAndArgs[at++] = number(offset);
			keysAndArgs[at++] = ONE;
		}
		return keysAndArgs;
	}

	/**
	 * Reads the {@code add} script's reply: an item is new when one of its bits was unset before.
	 * @param reply the reply
	 * @param name the filter's name, for the error
	 * @param layout the layout the call was made with
	 * @param items how many items the call carried
	 * @return per item whether it was new
	 * @throws BloomFilterSizingException if the shard holds a filter of other sizing
	 */
	static List<Boolean> readAdd(@Nullable List<Object> reply, String name, BloomLayout layout, int items) {
		if (reply == null || reply.isEmpty()) {
			throw new IllegalStateException("Unexpected reply from the Bloom filter add script: " + reply);
		}
		if (Long.valueOf(0).equals(reply.get(0))) {
			throw mismatch(name, layout, reply.subList(1, reply.size()));
		}
		List<Object> old = new ArrayList<>(items * layout.hashes());
		for (Object chunk : reply.subList(1, reply.size())) {
			old.addAll((List<?>) chunk);
		}
		int hashes = layout.hashes();
		if (old.size() != items * hashes) {
			throw new IllegalStateException("Bloom filter add script answered for " + old.size() + " bits, asked for "
					+ items * hashes);
		}
		List<Boolean> added = new ArrayList<>(items);
		for (int item = 0; item < items; item++) {
			boolean isNew = false;
			for (int i = 0; i < hashes && !isNew; i++) {
				isNew = (Long) old.get(item * hashes + i) == 0;
			}
			added.add(isNew);
		}
		return added;
	}

	/**
	 * The arguments of an add to a shard known to hold this filter: {@code BITFIELD key GET <header> SET u1
	 * <offset> 1...}, the header read in the same atomic command as the writes, so that a shard deleted or
	 * recreated since it was known shows in the reply.
	 * @param offsets the items' bit offsets, {@code hashes} per item
	 * @return the arguments after the key
	 */
	static byte[][] set(long[] offsets) {
		byte[][] args = new byte[HEADER.length + 4 * offsets.length][];
		System.arraycopy(HEADER, 0, args, 0, HEADER.length);
		int at = HEADER.length;
		for (long offset : offsets) {
			args[at++] = SET;
			args[at++] = U1;
			args[at++] = number(offset);
			args[at++] = ONE;
		}
		return args;
	}

	/**
	 * Reads the reply of {@link #set(long[])}: an item is new when one of its bits was unset before.
	 * @param reply the reply
	 * @param name the filter's name, for the error
	 * @param layout the layout
	 * @param items how many items
	 * @return per item whether it was new
	 * @throws BloomFilterSizingException if the shard holds a filter of other sizing
	 */
	static List<Boolean> readSet(@Nullable List<Object> reply, String name, BloomLayout layout, int items) {
		checkHeader(reply, name, layout);
		int hashes = layout.hashes();
		if (reply.size() != HEADER_FIELDS + items * hashes) {
			throw new IllegalStateException("Unexpected reply size " + reply.size() + " for an add of " + items + " items");
		}
		List<Boolean> added = new ArrayList<>(items);
		for (int item = 0; item < items; item++) {
			boolean isNew = false;
			for (int i = 0; i < hashes && !isNew; i++) {
				isNew = (Long) reply.get(HEADER_FIELDS + item * hashes + i) == 0;
			}
			added.add(isNew);
		}
		return added;
	}

	/**
	 * Whether the reply of {@link #set(long[])} read a header: if not, the shard was deleted (or had expired)
	 * since it was known, and the command created it without its sizing, which the add script must write now.
	 * @param reply a reply {@link #readSet} accepted
	 * @return whether the shard had its header
	 */
	static boolean hasHeader(List<Object> reply) {
		return (Long) reply.get(3) != 0;
	}

	/**
	 * The arguments of a lookup in one shard: {@code BITFIELD_RO key GET <header> GET u1 <offset>...}.
	 * @param offsets the items' bit offsets, {@code hashes} per item
	 * @return the arguments after the key
	 */
	static byte[][] lookup(long[] offsets) {
		byte[][] args = new byte[HEADER.length + 3 * offsets.length][];
		System.arraycopy(HEADER, 0, args, 0, HEADER.length);
		int at = HEADER.length;
		for (long offset : offsets) {
			args[at++] = GET;
			args[at++] = U1;
			args[at++] = number(offset);
		}
		return args;
	}

	/**
	 * The keys and arguments of the {@code check} script: the shard and its mark, then {@link #lookup(long[])}'s
	 * arguments.
	 * @param key the shard's key
	 * @param mark its completeness mark
	 * @param offsets the item's bit offsets
	 * @return the two keys, then the arguments
	 */
	static byte[][] check(byte[] key, byte[] mark, long[] offsets) {
		byte[][] lookup = lookup(offsets);
		byte[][] keysAndArgs = new byte[2 + lookup.length][];
		keysAndArgs[0] = key;
		keysAndArgs[1] = mark;
		System.arraycopy(lookup, 0, keysAndArgs, 2, lookup.length);
		return keysAndArgs;
	}

	/** @return the arguments of a header read: {@code BITFIELD_RO key GET <header>} */
	static byte[][] header() {
		return HEADER.clone();
	}

	/**
	 * Reads a lookup's reply. A shard that does not exist reads as all zeros: an empty filter, which contains
	 * nothing.
	 * @param reply the reply
	 * @param name the filter's name, for the error
	 * @param layout the layout
	 * @param items how many items
	 * @return per item whether all its bits are set
	 * @throws BloomFilterSizingException if the shard holds a filter of other sizing
	 */
	static List<Boolean> readLookup(@Nullable List<Object> reply, String name, BloomLayout layout, int items) {
		checkHeader(reply, name, layout);
		int hashes = layout.hashes();
		if (reply.size() != HEADER_FIELDS + items * hashes) {
			throw new IllegalStateException("Unexpected reply size " + reply.size() + " for a lookup of " + items + " items");
		}
		List<Boolean> found = new ArrayList<>(items);
		for (int item = 0; item < items; item++) {
			boolean all = true;
			for (int i = 0; i < hashes && all; i++) {
				all = (Long) reply.get(HEADER_FIELDS + item * hashes + i) == 1;
			}
			found.add(all);
		}
		return found;
	}

	/**
	 * Checks a header read by {@link #header()} or at the start of a lookup.
	 * @param reply the reply
	 * @param name the filter's name
	 * @param layout the expected layout
	 * @throws BloomFilterSizingException if the header is of another sizing
	 */
	static void checkHeader(@Nullable List<Object> reply, String name, BloomLayout layout) {
		if (reply == null || reply.size() < HEADER_FIELDS) {
			throw new IllegalStateException("Unexpected reply from BITFIELD_RO: " + reply);
		}
		long magic = (Long) reply.get(3);
		if (magic == 0) {
			return;
		}
		if ((Long) reply.get(0) != layout.bits() || (Long) reply.get(1) != layout.hashes()
				|| (Long) reply.get(2) != layout.shards() || magic != BloomLayout.MAGIC) {
			throw mismatch(name, layout, reply.subList(0, HEADER_FIELDS));
		}
	}

	/** @return the arguments of {@code BITCOUNT key 16 -1}: the bits set after the header */
	static byte[][] count() {
		return BITS_RANGE.clone();
	}

	private static BloomFilterSizingException mismatch(String name, BloomLayout layout, List<Object> stored) {
		long magic = (Long) stored.get(3);
		String what = (magic == BloomLayout.MAGIC)
				? stored.get(0) + " bits, " + stored.get(1) + " hashes, " + stored.get(2) + " shard(s)"
				: "an unknown header (magic " + Long.toHexString(magic) + ")";
		return new BloomFilterSizingException("Bloom filter '" + name + "' is stored in Redis with " + what
				+ ", but its spec now needs " + layout.bits() + " bits, " + layout.hashes() + " hashes, " + layout.shards()
				+ " shard(s): its bits mean nothing under other sizing. Use the spec it was created with, or delete the"
				+ " filter (BloomFilter.delete()) to start over empty.");
	}

	static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}

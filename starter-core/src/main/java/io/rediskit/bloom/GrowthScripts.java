package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * A growing filter's Redis calls, one method per operation with the reading of its reply: the add and lookup
 * scripts over its layers, and the reads of {@code info()}.
 */
final class GrowthScripts {

	static final LuaScript ADD = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/grow_add.lua");

	static final LuaScript CONTAINS = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/grow_contains.lua");

	static final String READ_RECORD = "HMGET";

	static final String COUNT = "BITCOUNT";

	/** The add script's status: every item handled. */
	static final long DONE = 1;

	/** The lookup script's status when asked with the mark: every item handled, and the filter is complete. */
	static final long COMPLETE = 2;

	/** The add script's status: an item needs a layer the call did not carry offsets for. */
	static final long NEEDS_LAYERS = -1;

	/** The add script's status: the last layer is full. */
	static final long FULL = -2;

	/** Either script's status: the filter is stored with other sizing. */
	static final long OTHER_SIZING = 0;

	private static final byte[][] RECORD_FIELDS = { ascii("sizing"), ascii("layers"), ascii("count"), ascii("items") };

	private GrowthScripts() {
	}

	/**
	 * @param recordKey the filter's record
	 * @param layerKeys the layers' keys, at least {@code layers}
	 * @param layout the layers' sizing
	 * @param layers how many layers the offsets cover
	 * @param markKey the filter's completeness mark, deleted when the add creates the filter anew
	 * @param ttlMillis the filter's TTL, 0 for none
	 * @param token a seeding's token to write to the mark, empty for none
	 * @param offsets per item, per layer, the item's offsets
	 * @param items how many items
	 * @return the keys ({@code 2 + layers}) and arguments of the add script
	 */
	static byte[][] add(byte[] recordKey, byte[][] layerKeys, byte[] markKey, GrowthLayout layout, int layers,
			long ttlMillis, byte[] token, long[] offsets, int items) {
		byte[][] keysAndArgs = new byte[2 + layers + 6 + 2 * layers + offsets.length][];
		int at = keys(keysAndArgs, recordKey, layerKeys, layers);
		keysAndArgs[at++] = markKey;
		keysAndArgs[at++] = utf8(layout.sizing());
		keysAndArgs[at++] = number(ttlMillis);
		keysAndArgs[at++] = number(layers);
		keysAndArgs[at++] = number(items);
		keysAndArgs[at++] = number(layout.maxLayers());
		keysAndArgs[at++] = token;
		for (int i = 0; i < layers; i++) {
			keysAndArgs[at++] = number(layout.capacity(i));
		}
		for (int i = 0; i < layers; i++) {
			keysAndArgs[at++] = number(layout.hashes(i));
		}
		for (long offset : offsets) {
			keysAndArgs[at++] = number(offset);
		}
		return keysAndArgs;
	}

	/**
	 * @param recordKey the filter's record
	 * @param layerKeys the layers' keys
	 * @param layout the layers' sizing
	 * @param layers how many layers the offsets cover
	 * @param offsets per item, per layer, the item's offsets
	 * @param items how many items
	 * @param markKey the filter's completeness mark, to be told whether it is complete ({@link #COMPLETE}); {@code null}
	 * for a plain lookup
	 * @return the keys ({@code 1 + layers}, and the mark) and arguments of the lookup script
	 */
	static byte[][] contains(byte[] recordKey, byte[][] layerKeys, GrowthLayout layout, int layers, long[] offsets,
			int items, byte @Nullable [] markKey) {
		int marks = (markKey != null) ? 1 : 0;
		byte[][] keysAndArgs = new byte[1 + layers + marks + 3 + layers + offsets.length][];
		int at = keys(keysAndArgs, recordKey, layerKeys, layers);
		if (markKey != null) {
			keysAndArgs[at++] = markKey;
		}
		keysAndArgs[at++] = utf8(layout.sizing());
		keysAndArgs[at++] = number(layers);
		keysAndArgs[at++] = number(items);
		for (int i = 0; i < layers; i++) {
			keysAndArgs[at++] = number(layout.hashes(i));
		}
		for (long offset : offsets) {
			keysAndArgs[at++] = number(offset);
		}
		return keysAndArgs;
	}

	private static int keys(byte[][] keysAndArgs, byte[] recordKey, byte[][] layerKeys, int layers) {
		keysAndArgs[0] = recordKey;
		System.arraycopy(layerKeys, 0, keysAndArgs, 1, layers);
		return 1 + layers;
	}

	/**
	 * A script's reply: its status, the filter's layers after it, and one flag per item handled.
	 * @param status {@link #DONE}, {@link #NEEDS_LAYERS}, {@link #FULL} or {@link #OTHER_SIZING}
	 * @param layers the layers the filter has
	 * @param count the items in the newest layer, as an add reports it (-1 from a lookup)
	 * @param flags per item handled, in order
	 * @param storedSizing the stored sizing when the status is {@link #OTHER_SIZING}
	 */
	record Reply(long status, int layers, long count, List<Boolean> flags, @Nullable String storedSizing) {
	}

	/** Reads {@code {status, layers, count, flags...}}, or {@code {0, sizing}}. */
	static Reply readAdd(@Nullable List<Object> reply) {
		return read(reply, 3);
	}

	/** Reads {@code {status, layers, flags...}}, or {@code {0, sizing}}. */
	static Reply readContains(@Nullable List<Object> reply) {
		return read(reply, 2);
	}

	private static Reply read(@Nullable List<Object> reply, int flagsFrom) {
		if (reply == null || reply.size() < 2) {
			throw new IllegalStateException("Unexpected reply from a growing Bloom filter script: " + reply);
		}
		long status = (Long) reply.get(0);
		if (status == OTHER_SIZING) {
			return new Reply(status, 0, -1, List.of(), string(reply.get(1)));
		}
		List<Boolean> flags = new ArrayList<>(Math.max(0, reply.size() - flagsFrom));
		for (int i = flagsFrom; i < reply.size(); i++) {
			flags.add((Long) reply.get(i) == 1);
		}
		long count = (flagsFrom > 2 && reply.size() > 2) ? (Long) reply.get(2) : -1;
		return new Reply(status, ((Long) reply.get(1)).intValue(), count, flags, null);
	}

	/** @return the arguments of {@code HMGET record sizing layers count items} */
	static byte[][] record() {
		return RECORD_FIELDS.clone();
	}

	static String string(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}

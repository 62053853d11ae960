package io.rediskit.counter;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The counter's Redis calls, one method per operation: {@code PFADD} and {@code PFCOUNT} of the all-time key,
 * the bucket add script ({@code PFADD} and {@code PEXPIREAT}), and the range count script ({@code PFMERGE} into a
 * cached key, then {@code PFCOUNT}); for a union, {@code PFCOUNT} of several keys (off Cluster, or of one slot),
 * or {@code GET} of each and the union script.
 */
final class UniqueCounterScripts {

	static final LuaScript ADD_TO_BUCKET = LuaScript.fromClasspath("META-INF/redis-kit/scripts/counter/add.lua");

	static final LuaScript COUNT_RANGE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/counter/count_range.lua");

	static final LuaScript COUNT_UNION = LuaScript.fromClasspath("META-INF/redis-kit/scripts/counter/count_union.lua");

	static final String READ = "GET";

	static final String ADD = "PFADD";

	static final String COUNT = "PFCOUNT";

	private UniqueCounterScripts() {
	}

	/** @return the members as the arguments of {@code PFADD key <member>...} */
	static byte[][] add(Collection<String> members) {
		byte[][] args = new byte[members.size()][];
		int i = 0;
		for (String member : members) {
			args[i++] = member.getBytes(StandardCharsets.UTF_8);
		}
		return args;
	}

	/**
	 * @param bucketKey the bucket
	 * @param expiresAtMillis when it expires, 0 for never
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @param members the members
	 * @return the key and arguments of the bucket add script
	 */
	static byte[][] addToBucket(byte[] bucketKey, long expiresAtMillis, @Nullable Long now, Collection<String> members) {
		byte[][] keysAndArgs = new byte[members.size() + 3][];
		keysAndArgs[0] = bucketKey;
		keysAndArgs[1] = number(expiresAtMillis);
		keysAndArgs[2] = (now != null) ? number(now) : new byte[0];
		int i = 3;
		for (String member : members) {
			keysAndArgs[i++] = member.getBytes(StandardCharsets.UTF_8);
		}
		return keysAndArgs;
	}

	/**
	 * @param cacheKey the range's cached merge
	 * @param bucketKeys the buckets of the range
	 * @param cacheTtlMillis how long the merge is kept
	 * @return the keys and argument of the range count script
	 */
	static byte[][] countRange(byte[] cacheKey, List<byte[]> bucketKeys, long cacheTtlMillis) {
		byte[][] keysAndArgs = new byte[bucketKeys.size() + 2][];
		keysAndArgs[0] = cacheKey;
		for (int i = 0; i < bucketKeys.size(); i++) {
			keysAndArgs[i + 1] = bucketKeys.get(i);
		}
		keysAndArgs[keysAndArgs.length - 1] = number(cacheTtlMillis);
		return keysAndArgs;
	}

	/**
	 * @param scratchKeys one per counter, all in one slot
	 * @param hyperLogLogs the counters' values, {@code null} for a counter without a key
	 * @return the keys and arguments of the union script
	 */
	static byte[][] countUnion(List<byte[]> scratchKeys, List<byte @Nullable []> hyperLogLogs) {
		byte[][] keysAndArgs = new byte[scratchKeys.size() * 2][];
		for (int i = 0; i < scratchKeys.size(); i++) {
			keysAndArgs[i] = scratchKeys.get(i);
			byte[] value = hyperLogLogs.get(i);
			keysAndArgs[scratchKeys.size() + i] = (value != null) ? value : new byte[0];
		}
		return keysAndArgs;
	}

	/** The bucket add script's refusal: the bucket was past its expiry, and nothing was written. */
	static boolean isPastRetention(@Nullable Long reply) {
		return reply != null && reply == -1;
	}

	static boolean readChanged(@Nullable Long reply) {
		return reply != null && reply == 1;
	}

	static long readCount(@Nullable Long reply) {
		return (reply != null) ? reply : 0;
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}

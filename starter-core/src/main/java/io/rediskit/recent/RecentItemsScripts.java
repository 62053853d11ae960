package io.rediskit.recent;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The recent items' Redis calls, one method per operation: the view script, {@code ZRANGE ... REV} of a user's
 * list, the trending script, {@code UNLINK} of a user's list.
 */
final class RecentItemsScripts {

	static final LuaScript VIEW = LuaScript.fromClasspath("META-INF/redis-kit/scripts/recent/view.lua");

	static final LuaScript TRENDING = LuaScript.fromClasspath("META-INF/redis-kit/scripts/recent/trending.lua");

	static final String RECENT = "ZRANGE";

	static final String FORGET = "UNLINK";

	private static final byte[] REV = bytes("REV");

	private RecentItemsScripts() {
	}

	/**
	 * @param userKey the user's list
	 * @param bucketKey the current trending bucket
	 * @param item the item
	 * @param spec the list's spec
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @return the keys and arguments of the view script
	 */
	static byte[][] view(byte[] userKey, byte[] bucketKey, String item, RecentItemsSpec spec, @Nullable Long now) {
		// A bucket lives as long as it can still be part of the period: the period plus its own length.
		long bucketTtl = spec.trendingPeriod().toMillis() + spec.bucketMillis();
		return new byte[][] { userKey, bucketKey, bytes(item), number(spec.capacity()), number(spec.idleTtl().toMillis()),
				number(bucketTtl), (now != null) ? number(now) : new byte[0] };
	}

	/** @return the arguments of {@code ZRANGE key 0 <count - 1> REV} */
	static byte[][] recent(int count) {
		return new byte[][] { number(0), number(count - 1), REV };
	}

	static List<String> readRecent(@Nullable List<Object> reply) {
		List<String> items = new ArrayList<>();
		if (reply != null) {
			reply.forEach((item) -> items.add(string(item)));
		}
		return items;
	}

	/**
	 * @param cacheKey the union's cache key
	 * @param bucketKeys the buckets of the period
	 * @param cacheTtlMillis how long the union is reused
	 * @param count how many items
	 * @return the keys and arguments of the trending script
	 */
	static byte[][] trending(byte[] cacheKey, List<byte[]> bucketKeys, long cacheTtlMillis, int count) {
		byte[][] keysAndArgs = new byte[bucketKeys.size() + 3][];
		keysAndArgs[0] = cacheKey;
		for (int i = 0; i < bucketKeys.size(); i++) {
			keysAndArgs[i + 1] = bucketKeys.get(i);
		}
		keysAndArgs[bucketKeys.size() + 1] = number(cacheTtlMillis);
		keysAndArgs[bucketKeys.size() + 2] = number(count);
		return keysAndArgs;
	}

	static List<TrendingItem> readTrending(@Nullable List<Object> reply) {
		List<TrendingItem> items = new ArrayList<>();
		if (reply != null) {
			for (int i = 0; i + 1 < reply.size(); i += 2) {
				items.add(new TrendingItem(string(reply.get(i)), (long) Double.parseDouble(string(reply.get(i + 1)))));
			}
		}
		return items;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static String string(@Nullable Object value) {
		return (value instanceof byte[] raw) ? new String(raw, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}

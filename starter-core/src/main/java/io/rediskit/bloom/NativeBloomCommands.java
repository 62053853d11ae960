package io.rediskit.bloom;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The native filter's commands (RedisBloom's {@code BF.*}) and the reading of their replies, one method per
 * operation. Adds use {@code BF.INSERT} with {@code CAPACITY}, {@code ERROR} and {@code NONSCALING}, so a
 * filter that vanished is recreated with its own sizing, never as {@code BF.ADD}'s auto-created 100-item
 * filter.
 */
final class NativeBloomCommands {

	/** Reserves a filter if absent, deleting its completeness mark then; with a token, begins a seeding. */
	static final LuaScript RESERVE_SCRIPT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/native_reserve.lua");

	/** {@code BF.INSERT}, deleting the completeness mark when it creates the filter anew. */
	static final LuaScript INSERT_SCRIPT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/native_add.lua");

	/** {@code BF.MEXISTS} and whether the filter is complete. */
	static final LuaScript CHECK_SCRIPT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/native_check.lua");

	static final String RESERVE = "BF.RESERVE";

	static final String INSERT = "BF.INSERT";

	static final String EXISTS = "BF.MEXISTS";

	static final String INFO = "BF.INFO";

	/** What {@code COMMAND INFO} must know for native mode. */
	static final List<String> REQUIRED = List.of(RESERVE, INSERT, EXISTS, INFO);

	private static final byte[] CAPACITY = ascii("CAPACITY");

	private static final byte[] ERROR = ascii("ERROR");

	private static final byte[] NONSCALING = ascii("NONSCALING");

	private static final byte[] ITEMS = ascii("ITEMS");

	private NativeBloomCommands() {
	}

	/** @return the arguments after the key of {@code BF.RESERVE key <rate> <capacity> NONSCALING} */
	static byte[][] reserve(BloomFilterSpec spec) {
		return new byte[][] { rate(spec), BloomScripts.number(spec.expectedInsertions()), NONSCALING };
	}

	/**
	 * @param spec the filter's spec
	 * @param items the items
	 * @return the arguments after the key of
	 * {@code BF.INSERT key CAPACITY <n> ERROR <rate> NONSCALING ITEMS <item>...}
	 */
	static byte[][] insert(BloomFilterSpec spec, List<byte[]> items) {
		byte[][] args = new byte[6 + items.size()][];
		args[0] = CAPACITY;
		args[1] = BloomScripts.number(spec.expectedInsertions());
		args[2] = ERROR;
		args[3] = rate(spec);
		args[4] = NONSCALING;
		args[5] = ITEMS;
		for (int i = 0; i < items.size(); i++) {
			args[6 + i] = items.get(i);
		}
		return args;
	}

	/**
	 * @param key the filter's key
	 * @param mark its completeness mark
	 * @param first the scripts' first argument, if any (a seeding's token)
	 * @param args the command's arguments after the key
	 * @return the keys and arguments of one of the native scripts
	 */
	static byte[][] script(byte[] key, byte[] mark, byte @Nullable [] first, byte[][] args) {
		int lead = (first != null) ? 3 : 2;
		byte[][] keysAndArgs = new byte[lead + args.length][];
		keysAndArgs[0] = key;
		keysAndArgs[1] = mark;
		if (first != null) {
			keysAndArgs[2] = first;
		}
		System.arraycopy(args, 0, keysAndArgs, lead, args.length);
		return keysAndArgs;
	}

	/** @return the arguments after the key of {@code BF.MEXISTS key <item>...} */
	static byte[][] exists(List<byte[]> items) {
		return items.toArray(new byte[0][]);
	}

	/**
	 * Reads the per-item integers of {@code BF.INSERT} (1: added) or {@code BF.MEXISTS} (1: may exist).
	 * @param reply the reply
	 * @param items how many items
	 * @return per item the flag
	 */
	static List<Boolean> readFlags(@Nullable List<Object> reply, int items) {
		if (reply == null || reply.size() != items) {
			throw new IllegalStateException("Unexpected reply from a BF command for " + items + " items: " + reply);
		}
		List<Boolean> flags = new ArrayList<>(items);
		for (Object flag : reply) {
			if (!(flag instanceof Long value)) {
				throw new IllegalStateException("Unexpected element in a BF reply: " + flag);
			}
			flags.add(value == 1);
		}
		return flags;
	}

	/**
	 * Reads a field of {@code BF.INFO key}: label, value, label, value...
	 * @param reply the reply
	 * @param label such as {@code Capacity} or {@code Number of items inserted}
	 * @return the value, or -1 if the reply has no such field
	 */
	static long readInfo(@Nullable List<Object> reply, String label) {
		if (reply == null) {
			return -1;
		}
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			Object name = reply.get(i);
			String text = (name instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(name);
			if (text.equalsIgnoreCase(label) && reply.get(i + 1) instanceof Long value) {
				return value;
			}
		}
		return -1;
	}

	/** The rate as a plain decimal: {@code 0.0001}, never {@code 1.0E-4}. */
	private static byte[] rate(BloomFilterSpec spec) {
		return ascii(BigDecimal.valueOf(spec.falsePositiveRate()).stripTrailingZeros().toPlainString());
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}

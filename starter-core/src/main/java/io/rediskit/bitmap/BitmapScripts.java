package io.rediskit.bitmap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.LuaScript;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The bitmap calls, one method per operation with the reading of its reply: the check-in (set a bit) and streak
 * scripts, the daily activity's scripts over several days, and the {@code BITFIELD}, {@code BITFIELD_RO},
 * {@code BITCOUNT}, {@code BITPOS} and {@code GETBIT} commands.
 */
final class BitmapScripts {

	static final LuaScript CHECK_IN = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bitmap/check_in.lua");

	static final LuaScript STREAK = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bitmap/streak.lua");

	static final LuaScript EVERY_DAY = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bitmap/activity_every_day.lua");

	static final LuaScript ANY_DAY = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bitmap/activity_any_day.lua");

	static final LuaScript RETENTION = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bitmap/activity_retention.lua");

	static final String GET_BIT = "GETBIT";

	static final String FIELD = "BITFIELD";

	static final String READ_FIELD = "BITFIELD_RO";

	static final String COUNT = "BITCOUNT";

	static final String POSITION = "BITPOS";

	private static final byte[] GET = ascii("GET");

	private static final byte[] SET = ascii("SET");

	private static final byte[] INCRBY = ascii("INCRBY");

	private static final byte[] OVERFLOW = ascii("OVERFLOW");

	private static final byte[] U1 = ascii("u1");

	private static final byte[] ONE = ascii("1");

	private BitmapScripts() {
	}

	/**
	 * @param key the month's key
	 * @param date the day
	 * @param expiresAtMillis when the month expires, 0 for never
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @return the key and arguments of the check-in script
	 */
	static byte[][] checkIn(byte[] key, LocalDate date, long expiresAtMillis, @Nullable Long now) {
		return setBit(key, date.getDayOfMonth() - 1, expiresAtMillis, now);
	}

	/**
	 * @param key the day's key
	 * @param offset the bit, a user id
	 * @param expiresAtMillis when the key expires, 0 for never
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @return the key and arguments of the check-in script, which sets one bit
	 */
	static byte[][] setBit(byte[] key, long offset, long expiresAtMillis, @Nullable Long now) {
		return new byte[][] { key, number(offset), number(expiresAtMillis), (now != null) ? number(now) : new byte[0] };
	}

	/**
	 * @param scratchKey where the days are combined, deleted by the script
	 * @param dayKeys the days
	 * @return the keys of the every-day and any-day scripts
	 */
	static byte[][] combine(byte[] scratchKey, List<byte[]> dayKeys) {
		byte[][] keys = new byte[dayKeys.size() + 1][];
		keys[0] = scratchKey;
		for (int i = 0; i < dayKeys.size(); i++) {
			keys[i + 1] = dayKeys.get(i);
		}
		return keys;
	}

	static Retention readRetention(@Nullable List<Object> reply) {
		if (reply == null || reply.size() != 2) {
			throw new IllegalStateException("Unexpected reply from the retention script: " + reply);
		}
		return new Retention((Long) reply.get(0), (Long) reply.get(1));
	}

	/** The check-in script's refusal: the month was past its expiry, and nothing was written. */
	static boolean isPastRetention(@Nullable Long reply) {
		return reply != null && reply == -1;
	}

	/**
	 * When a key of one period (a calendar's month, an activity's day) expires: the end of the period in the
	 * entry's zone plus its retention.
	 * @param periodEnd the first day after the period
	 * @return the expiry in epoch ms, {@code 0} for never (no retention)
	 */
	static long expiresAt(LocalDate periodEnd, ZoneId zone, @Nullable Duration retention) {
		return (retention != null) ? periodEnd.atStartOfDay(zone).toInstant().plus(retention).toEpochMilli() : 0;
	}

	/**
	 * Sets one bit with the check-in script, the write of the calendars and the daily activities alike.
	 * @param keysAndArgs from {@link #checkIn} or {@link #setBit}
	 * @param retention the entry's retention, {@code null} for none
	 * @param expiresAtMillis the key's expiry, from {@link #expiresAt}
	 * @param entry names the entry in the exception, such as {@code Daily activity 'logins'}; asked only then
	 * @param write names the write in the exception, such as {@code a mark on 2024-05-01}; asked only then
	 * @return whether the bit was clear before; exceptionally with {@link RetentionPassedException} when the key
	 * was already past its retention (nothing was written)
	 */
	static CompletionStage<Boolean> markAsync(ScriptExecutor scripts, byte[][] keysAndArgs,
			@Nullable Duration retention, long expiresAtMillis, Supplier<String> entry, Supplier<String> write) {
		return scripts.<Long>executeAsync(CHECK_IN, ReturnType.INTEGER, 1, keysAndArgs).thenApply((old) -> {
			if (isPastRetention(old) && retention != null) {
				throw new RetentionPassedException(entry.get(), write.get(), retention,
						Instant.ofEpochMilli(expiresAtMillis));
			}
			return old != null && old == 0;
		});
	}

	/** @return the arguments of {@code BITFIELD_RO key GET u1 <day - 1>} */
	static byte[][] hasCheckedIn(LocalDate date) {
		return new byte[][] { GET, U1, number(date.getDayOfMonth() - 1) };
	}

	/** @return the arguments of {@code BITFIELD_RO key GET u<days> 0} */
	static byte[][] calendar(YearMonth month) {
		return new byte[][] { GET, ascii("u" + month.lengthOfMonth()), ascii("0") };
	}

	/** @return the arguments of {@code BITPOS key 1} */
	static byte[][] firstCheckIn() {
		return new byte[][] { ONE };
	}

	/**
	 * @param monthKeys the months' keys, the day's month first, going back
	 * @param months the months in the same order
	 * @param date the streak's last day
	 * @return the keys and arguments of the streak script
	 */
	static byte[][] streak(List<byte[]> monthKeys, List<YearMonth> months, LocalDate date) {
		byte[][] keysAndArgs = new byte[monthKeys.size() * 2 + 1][];
		for (int i = 0; i < monthKeys.size(); i++) {
			keysAndArgs[i] = monthKeys.get(i);
			keysAndArgs[monthKeys.size() + 1 + i] = number(months.get(i).lengthOfMonth());
		}
		keysAndArgs[monthKeys.size()] = number(date.getDayOfMonth());
		return keysAndArgs;
	}

	static boolean readBit(@Nullable List<Object> reply) {
		return reply != null && !reply.isEmpty() && Long.valueOf(1).equals(reply.get(0));
	}

	static List<Boolean> readCalendar(@Nullable List<Object> reply, YearMonth month) {
		long bits = (reply != null && !reply.isEmpty() && reply.get(0) instanceof Long value) ? value : 0;
		int days = month.lengthOfMonth();
		List<Boolean> calendar = new ArrayList<>(days);
		for (int day = 1; day <= days; day++) {
			calendar.add(((bits >>> (days - day)) & 1) == 1);
		}
		return calendar;
	}

	static Optional<LocalDate> readFirst(@Nullable Long position, YearMonth month) {
		return (position == null || position < 0 || position >= month.lengthOfMonth()) ? Optional.empty()
				: Optional.of(month.atDay((int) (position + 1)));
	}

	/** @return the arguments of {@code BITFIELD key OVERFLOW <mode> INCRBY <type> #<index> <delta>} */
	static byte[][] incrementBy(PackedCounterSpec spec, long index, long delta) {
		return new byte[][] { OVERFLOW, ascii(spec.overflow().name()), INCRBY, ascii(spec.type()), ascii("#" + index),
				number(delta) };
	}

	/** @return the arguments of {@code BITFIELD_RO key GET <type> #<index>} */
	static byte[][] get(PackedCounterSpec spec, long index) {
		return new byte[][] { GET, ascii(spec.type()), ascii("#" + index) };
	}

	/** @return the arguments of {@code BITFIELD key SET <type> #<index> <value>} */
	static byte[][] set(PackedCounterSpec spec, long index, long value) {
		return new byte[][] { SET, ascii(spec.type()), ascii("#" + index), number(value) };
	}

	/** An {@code OVERFLOW FAIL} refusal replies nil. */
	static OptionalLong readIncrement(@Nullable List<Object> reply) {
		return (reply != null && !reply.isEmpty() && reply.get(0) instanceof Long value) ? OptionalLong.of(value)
				: OptionalLong.empty();
	}

	static long readValue(@Nullable List<Object> reply) {
		return (reply != null && !reply.isEmpty() && reply.get(0) instanceof Long value) ? value : 0;
	}

	static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}

package io.rediskit.bitmap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link DailyActivity} of a {@link BitmapRegistry}. Keys, all in the activity's hash tag:
 * {@code <prefix>activity:{<name>}:<yyyy-MM-dd>} per day and {@code ...:{<name>}:scratch}, which a script creates,
 * counts and deletes within itself.
 */
final class RedisDailyActivity extends BitmapEntry<DailyActivitySpec> implements DailyActivity {

	private static final String AREA = "activity";

	private final ScriptExecutor scripts;

	private final byte[] scratchKey;

	RedisDailyActivity(String name, DailyActivitySpec spec, ScriptExecutor scripts, CommandExecutor commands,
			KeyNaming keyNaming, ObservedCalls calls) {
		super(name, spec, commands, keyNaming, calls);
		this.scripts = scripts;
		this.scratchKey = bytes(keyNaming.key(AREA, name, "scratch"));
	}

	@Override
	public boolean markActive(long userId, LocalDate day) {
		return Stages.join(markActiveAsync(userId, day));
	}

	@Override
	public CompletionStage<Boolean> markActiveAsync(long userId, LocalDate day) {
		return markActiveAsync(userId, day, null);
	}

	/** {@link #markActiveAsync(long, LocalDate)} at a pinned server time, for tests. */
	CompletionStage<Boolean> markActiveAsync(long userId, LocalDate day, @Nullable Long serverNow) {
		byte[] key = dayKey(day);
		Duration retention = this.spec.retention();
		long expiresAt = BitmapScripts.expiresAt(day.plusDays(1), this.spec.zone(), retention);
		byte[][] keysAndArgs = BitmapScripts.setBit(key, checkUser(userId), expiresAt, serverNow);
		return this.calls.observed("mark-active", () -> BitmapScripts.markAsync(this.scripts, keysAndArgs, retention,
				expiresAt, () -> "Daily activity '" + this.name + "'", () -> "a mark on " + day));
	}

	@Override
	public boolean isActive(long userId, LocalDate day) {
		return Stages.join(isActiveAsync(userId, day));
	}

	@Override
	public CompletionStage<Boolean> isActiveAsync(long userId, LocalDate day) {
		byte[] key = dayKey(day);
		byte[] offset = BitmapScripts.number(checkUser(userId));
		return this.calls.observed("is-active", () -> this.commands
			.<Long>executeAsync(BitmapScripts.GET_BIT, ReturnType.INTEGER, key, offset)
			.thenApply((bit) -> bit != null && bit == 1));
	}

	@Override
	public long count(LocalDate day) {
		return Stages.join(countAsync(day));
	}

	@Override
	public CompletionStage<Long> countAsync(LocalDate day) {
		byte[] key = dayKey(day);
		return this.calls.observed("count", () -> this.commands
			.<Long>executeAsync(BitmapScripts.COUNT, ReturnType.INTEGER, key)
			.thenApply(RedisDailyActivity::orZero));
	}

	@Override
	public long countActiveEveryDay(LocalDate from, LocalDate to) {
		return Stages.join(countActiveEveryDayAsync(from, to));
	}

	@Override
	public CompletionStage<Long> countActiveEveryDayAsync(LocalDate from, LocalDate to) {
		byte[][] keys = BitmapScripts.combine(this.scratchKey, dayKeys(from, to));
		return this.calls.observed("every-day", () -> this.scripts
			.<Long>executeAsync(BitmapScripts.EVERY_DAY, ReturnType.INTEGER, keys.length, keys)
			.thenApply(RedisDailyActivity::orZero));
	}

	@Override
	public long countActiveAnyDay(LocalDate from, LocalDate to) {
		return Stages.join(countActiveAnyDayAsync(from, to));
	}

	@Override
	public CompletionStage<Long> countActiveAnyDayAsync(LocalDate from, LocalDate to) {
		byte[][] keys = BitmapScripts.combine(this.scratchKey, dayKeys(from, to));
		return this.calls.observed("any-day", () -> this.scripts
			.<Long>executeAsync(BitmapScripts.ANY_DAY, ReturnType.INTEGER, keys.length, keys)
			.thenApply(RedisDailyActivity::orZero));
	}

	@Override
	public Retention retention(LocalDate day, int afterDays) {
		return Stages.join(retentionAsync(day, afterDays));
	}

	@Override
	public CompletionStage<Retention> retentionAsync(LocalDate day, int afterDays) {
		if (afterDays < 1 || afterDays > MAX_RANGE_DAYS) {
			throw new IllegalArgumentException("afterDays must be from 1 to " + MAX_RANGE_DAYS + ", was " + afterDays);
		}
		byte[][] keys = BitmapScripts.combine(this.scratchKey, List.of(dayKey(day), dayKey(day.plusDays(afterDays))));
		return this.calls.observed("retention", () -> this.scripts
			.<List<Object>>executeAsync(BitmapScripts.RETENTION, ReturnType.MULTI, keys.length, keys)
			.thenApply(BitmapScripts::readRetention));
	}

	/** Refuses before Redis an id that would grow a day's bitmap past the bound: Redis would allocate it. */
	private long checkUser(long userId) {
		if (userId < 0 || userId > this.spec.maxUserId()) {
			throw new IllegalArgumentException("userId must be from 0 to " + this.spec.maxUserId()
					+ " (the maxUserId of daily activity '" + this.name + "'), was " + userId);
		}
		return userId;
	}

	private List<byte[]> dayKeys(LocalDate from, LocalDate to) {
		Objects.requireNonNull(from, "from must not be null");
		Objects.requireNonNull(to, "to must not be null");
		if (to.isBefore(from)) {
			throw new IllegalArgumentException("to must not be before from, was " + from + " to " + to);
		}
		long days = ChronoUnit.DAYS.between(from, to) + 1;
		if (days > MAX_RANGE_DAYS) {
			throw new IllegalArgumentException("A range spans at most " + MAX_RANGE_DAYS + " days; " + from + " to " + to
					+ " spans " + days);
		}
		List<byte[]> keys = new ArrayList<>((int) days);
		for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
			keys.add(dayKey(day));
		}
		return keys;
	}

	private byte[] dayKey(LocalDate day) {
		Objects.requireNonNull(day, "day must not be null");
		return bytes(this.keyNaming.key(AREA, this.name, day.toString()));
	}

	private static long orZero(@Nullable Long count) {
		return (count != null) ? count : 0;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

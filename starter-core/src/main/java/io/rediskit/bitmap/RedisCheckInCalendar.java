package io.rediskit.bitmap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link CheckInCalendar} of a {@link BitmapRegistry}.
 */
final class RedisCheckInCalendar extends BitmapEntry<CheckInCalendarSpec> implements CheckInCalendar {

	private static final String AREA = "bitmap";

	private final ScriptExecutor scripts;

	RedisCheckInCalendar(String name, CheckInCalendarSpec spec, ScriptExecutor scripts, CommandExecutor commands,
			KeyNaming keyNaming, ObservedCalls calls) {
		super(name, spec, commands, keyNaming, calls);
		this.scripts = scripts;
	}

	@Override
	public boolean checkIn(String user, LocalDate date) {
		return Stages.join(checkInAsync(user, date));
	}

	@Override
	public CompletionStage<Boolean> checkInAsync(String user, LocalDate date) {
		Objects.requireNonNull(date, "date must not be null");
		YearMonth month = YearMonth.from(date);
		Duration retention = this.spec.retention();
		long expiresAt = BitmapScripts.expiresAt(month.plusMonths(1).atDay(1), this.spec.zone(), retention);
		byte[][] keysAndArgs = BitmapScripts.checkIn(key(user, month), date, expiresAt, null);
		return this.calls.observed("check-in", () -> BitmapScripts.markAsync(this.scripts, keysAndArgs, retention,
				expiresAt, () -> "Check-in calendar '" + this.name + "'",
				() -> "a check-in on " + date + " (month " + month + ")"));
	}

	@Override
	public boolean hasCheckedIn(String user, LocalDate date) {
		return Stages.join(hasCheckedInAsync(user, date));
	}

	@Override
	public CompletionStage<Boolean> hasCheckedInAsync(String user, LocalDate date) {
		byte[] key = key(user, YearMonth.from(date));
		return this.calls.observed("has-checked-in", () -> this.commands
			.<List<Object>>executeAsync(BitmapScripts.READ_FIELD, ReturnType.MULTI, key, BitmapScripts.hasCheckedIn(date))
			.thenApply(BitmapScripts::readBit));
	}

	@Override
	public int countInMonth(String user, YearMonth month) {
		return Stages.join(countInMonthAsync(user, month));
	}

	@Override
	public CompletionStage<Integer> countInMonthAsync(String user, YearMonth month) {
		byte[] key = key(user, month);
		return this.calls.observed("count", () -> this.commands
			.<Long>executeAsync(BitmapScripts.COUNT, ReturnType.INTEGER, key)
			.thenApply((count) -> (count != null) ? count.intValue() : 0));
	}

	@Override
	public Optional<LocalDate> firstCheckIn(String user, YearMonth month) {
		return Stages.join(firstCheckInAsync(user, month));
	}

	@Override
	public CompletionStage<Optional<LocalDate>> firstCheckInAsync(String user, YearMonth month) {
		byte[] key = key(user, month);
		return this.calls.observed("first", () -> this.commands
			.<Long>executeAsync(BitmapScripts.POSITION, ReturnType.INTEGER, key, BitmapScripts.firstCheckIn())
			.thenApply((position) -> BitmapScripts.readFirst(position, month)));
	}

	@Override
	public List<Boolean> calendar(String user, YearMonth month) {
		return Stages.join(calendarAsync(user, month));
	}

	@Override
	public CompletionStage<List<Boolean>> calendarAsync(String user, YearMonth month) {
		byte[] key = key(user, month);
		return this.calls.observed("calendar", () -> this.commands
			.<List<Object>>executeAsync(BitmapScripts.READ_FIELD, ReturnType.MULTI, key, BitmapScripts.calendar(month))
			.thenApply((reply) -> BitmapScripts.readCalendar(reply, month)));
	}

	@Override
	public int streak(String user, LocalDate date) {
		return Stages.join(streakAsync(user, date));
	}

	@Override
	public CompletionStage<Integer> streakAsync(String user, LocalDate date) {
		Objects.requireNonNull(date, "date must not be null");
		List<YearMonth> months = new ArrayList<>(MAX_STREAK_MONTHS);
		List<byte[]> keys = new ArrayList<>(MAX_STREAK_MONTHS);
		for (int i = 0; i < MAX_STREAK_MONTHS; i++) {
			YearMonth month = YearMonth.from(date).minusMonths(i);
			months.add(month);
			keys.add(key(user, month));
		}
		byte[][] keysAndArgs = BitmapScripts.streak(keys, months, date);
		return this.calls.observed("streak", () -> this.scripts.<Long>executeAsync(BitmapScripts.STREAK,
				ReturnType.INTEGER, keys.size(), keysAndArgs)
			.thenApply((streak) -> (streak != null) ? streak.intValue() : 0));
	}

	/** A user's month; every month of a user shares the tag {@code {<calendar>:<user>}}. */
	private byte[] key(String user, YearMonth month) {
		Objects.requireNonNull(user, "user must not be null");
		Objects.requireNonNull(month, "month must not be null");
		// The calendar name holds no ':' (see Names), so name and user cannot run into each other.
		return this.keyNaming.key(AREA, this.name + ":" + user, month.toString()).getBytes(StandardCharsets.UTF_8);
	}

}

package io.rediskit.bitmap;

import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.RetentionPassedException;

/**
 * Daily check-ins per user: one Redis key per user per month ({@code <prefix>bitmap:{<calendar>:<user>}:2024-02}),
 * a bit per day, 4 bytes a month. Every call is one round trip; a streak reads back across month ends in one
 * script. All months of a user share a hash tag. Users are data: any string, encoded into the key.
 * <p>
 * An outage fails the call with Spring's {@code DataAccessException}, ends its observation as {@code error} and logs a throttled
 * warning.
 */
public interface CheckInCalendar {

	/** Months a streak reads back at most: it is counted up to about 13 months. */
	int MAX_STREAK_MONTHS = 13;

	/** @return the calendar's name */
	String name();

	/** @return its spec */
	CheckInCalendarSpec spec();

	/**
	 * Records a check-in. With a retention, a day whose month ended longer ago than the retention (by the Redis
	 * server's clock) is refused: its key would be deleted as it is written, so nothing is written and the call
	 * throws rather than report a check-in that is not kept.
	 * @param user who
	 * @param date the day
	 * @return whether it is new (the user had not checked in that day)
	 * @throws RetentionPassedException if the day's month is past the retention
	 */
	boolean checkIn(String user, LocalDate date);

	/**
	 * Records a check-in on the day of an instant in the calendar's zone.
	 * @param user who
	 * @param at when
	 * @return whether it is new
	 * @throws RetentionPassedException if the day's month is past the retention
	 */
	default boolean checkIn(String user, Instant at) {
		return checkIn(user, LocalDate.ofInstant(at, spec().zone()));
	}

	/**
	 * @param user who
	 * @param date the day
	 * @return whether the user checked in that day
	 */
	boolean hasCheckedIn(String user, LocalDate date);

	/**
	 * Like {@link #hasCheckedIn(String, LocalDate)}, without blocking the calling thread.
	 * @param user who
	 * @param date the day
	 * @return the same answer, completed on the driver's thread
	 */
	CompletionStage<Boolean> hasCheckedInAsync(String user, LocalDate date);

	/**
	 * @param user who
	 * @param month the month
	 * @return the days of the month the user checked in ({@code BITCOUNT})
	 */
	int countInMonth(String user, YearMonth month);

	/**
	 * Like {@link #countInMonth(String, YearMonth)}, without blocking the calling thread.
	 * @param user who
	 * @param month the month
	 * @return the same answer, completed on the driver's thread
	 */
	CompletionStage<Integer> countInMonthAsync(String user, YearMonth month);

	/**
	 * @param user who
	 * @param month the month
	 * @return the first day of the month the user checked in ({@code BITPOS}), if any
	 */
	Optional<LocalDate> firstCheckIn(String user, YearMonth month);

	/**
	 * Like {@link #firstCheckIn(String, YearMonth)}, without blocking the calling thread.
	 * @param user who
	 * @param month the month
	 * @return the same answer, completed on the driver's thread
	 */
	CompletionStage<Optional<LocalDate>> firstCheckInAsync(String user, YearMonth month);

	/**
	 * The month as a calendar, read with one {@code BITFIELD GET u<days> 0}.
	 * @param user who
	 * @param month the month
	 * @return per day of the month, from the 1st, whether the user checked in
	 */
	List<Boolean> calendar(String user, YearMonth month);

	/**
	 * Like {@link #calendar(String, YearMonth)}, without blocking the calling thread.
	 * @param user who
	 * @param month the month
	 * @return the same answer, completed on the driver's thread
	 */
	CompletionStage<List<Boolean>> calendarAsync(String user, YearMonth month);

	/**
	 * The consecutive days with a check-in ending on a day, across month ends, in one script call reading at
	 * most {@value #MAX_STREAK_MONTHS} months.
	 * @param user who
	 * @param date the last day of the streak
	 * @return the streak; 0 if the user did not check in on {@code date}
	 */
	int streak(String user, LocalDate date);

	/**
	 * {@link #checkIn(String, LocalDate)} without blocking.
	 * @param user who
	 * @param date the day
	 * @return whether it is new; completed exceptionally with {@link RetentionPassedException} if the day's
	 * month is past the retention (nothing written)
	 */
	CompletionStage<Boolean> checkInAsync(String user, LocalDate date);

	/**
	 * {@link #streak(String, LocalDate)} without blocking.
	 * @param user who
	 * @param date the last day
	 * @return the streak
	 */
	CompletionStage<Integer> streakAsync(String user, LocalDate date);

}

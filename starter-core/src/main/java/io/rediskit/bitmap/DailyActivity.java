package io.rediskit.bitmap;

import java.time.Instant;
import java.time.LocalDate;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.RetentionPassedException;

/**
 * Daily active users: one bitmap per day ({@code <prefix>activity:{<name>}:2024-02-29}), bit {@code userId} set
 * when the user was active that day. Marking, reading and counting a day are one command each; the questions over
 * several days (active on every day of a range, on any day of it, retention) are one script each, which combines
 * the days with {@code BITOP} into a scratch key of the same hash slot, counts it and deletes it before it returns:
 * no combined copy outlives the call, and the answer is never stale.
 * <p>
 * User ids are numbers from 0 to {@link DailyActivitySpec#maxUserId()}, checked before Redis: a day's bitmap costs
 * one bit per id up to the largest marked (1 MiB for 8 million users), so ids should be dense, such as a database's
 * sequence. Ids that are not numbers are refused rather than mapped: a table from strings to dense numbers would
 * keep every user for ever beside bitmaps that expire, add a lookup to every mark, and number users in the order
 * they were first seen; an application that has such ids keeps that mapping where it keeps its users.
 * <p>
 * Every day of one activity shares its hash tag, so one activity lives on one master of a Redis Cluster (that is
 * what lets {@code BITOP} combine days); spread load by using several. A question spans at most
 * {@value #MAX_RANGE_DAYS} days. An outage fails the call with Spring's {@code DataAccessException}, ends its observation as
 * {@code error} and logs a throttled warning.
 */
public interface DailyActivity {

	/** Most days one question combines. */
	int MAX_RANGE_DAYS = 400;

	/** @return the activity's name */
	String name();

	/** @return its spec */
	DailyActivitySpec spec();

	/**
	 * Marks a user active on a day. With a retention, a day that ended longer ago than the retention (by the Redis
	 * server's clock) is refused: nothing is written.
	 * @param userId the user, from 0 to the spec's {@code maxUserId}
	 * @param day the day
	 * @return whether it is new: the user was not yet marked that day
	 * @throws IllegalArgumentException if the id is out of range
	 * @throws RetentionPassedException if the day is past the retention
	 */
	boolean markActive(long userId, LocalDate day);

	/**
	 * Marks a user active on the day of an instant in the spec's zone.
	 * @param userId the user
	 * @param at when
	 * @return whether it is new
	 * @throws RetentionPassedException if the day is past the retention
	 */
	default boolean markActive(long userId, Instant at) {
		return markActive(userId, LocalDate.ofInstant(at, spec().zone()));
	}

	/**
	 * @param userId the user
	 * @param day the day
	 * @return whether the user was active that day ({@code GETBIT})
	 */
	boolean isActive(long userId, LocalDate day);

	/**
	 * @param day the day
	 * @return how many users were active that day ({@code BITCOUNT})
	 */
	long count(LocalDate day);

	/**
	 * Users active on every day of a range ({@code BITOP AND}).
	 * @param from the first day
	 * @param to the last day, not before {@code from}
	 * @return how many users were active on each of the days
	 * @throws IllegalArgumentException if the range is reversed or spans more than {@value #MAX_RANGE_DAYS} days
	 */
	long countActiveEveryDay(LocalDate from, LocalDate to);

	/**
	 * Users active on at least one day of a range ({@code BITOP OR}): the range's distinct active users, exact.
	 * @param from the first day
	 * @param to the last day, not before {@code from}
	 * @return how many users were active on any of the days
	 * @throws IllegalArgumentException if the range is reversed or spans more than {@value #MAX_RANGE_DAYS} days
	 */
	long countActiveAnyDay(LocalDate from, LocalDate to);

	/**
	 * Retention: of the users active on a day, how many were active again {@code afterDays} later
	 * ({@code BITCOUNT} of the day and of the day {@code BITOP AND} the later one, in one script).
	 * @param day the cohort's day
	 * @param afterDays how many days later, from 1 to {@value #MAX_RANGE_DAYS}
	 * @return the cohort and how many of it came back
	 */
	Retention retention(LocalDate day, int afterDays);

	/**
	 * {@link #markActive(long, LocalDate)} without blocking; an id out of range throws at once.
	 * @param userId the user
	 * @param day the day
	 * @return whether it is new; completed exceptionally with {@link RetentionPassedException} if the day is past
	 * the retention (nothing written)
	 */
	CompletionStage<Boolean> markActiveAsync(long userId, LocalDate day);

	/**
	 * {@link #isActive(long, LocalDate)} without blocking.
	 * @param userId the user
	 * @param day the day
	 * @return whether the user was active
	 */
	CompletionStage<Boolean> isActiveAsync(long userId, LocalDate day);

	/**
	 * {@link #count(LocalDate)} without blocking.
	 * @param day the day
	 * @return the day's active users
	 */
	CompletionStage<Long> countAsync(LocalDate day);

	/**
	 * {@link #countActiveEveryDay(LocalDate, LocalDate)} without blocking; an invalid range throws at once.
	 * @param from the first day
	 * @param to the last day
	 * @return how many users were active on each day
	 */
	CompletionStage<Long> countActiveEveryDayAsync(LocalDate from, LocalDate to);

	/**
	 * {@link #countActiveAnyDay(LocalDate, LocalDate)} without blocking; an invalid range throws at once.
	 * @param from the first day
	 * @param to the last day
	 * @return how many users were active on any day
	 */
	CompletionStage<Long> countActiveAnyDayAsync(LocalDate from, LocalDate to);

	/**
	 * {@link #retention(LocalDate, int)} without blocking; an invalid {@code afterDays} throws at once.
	 * @param day the cohort's day
	 * @param afterDays how many days later
	 * @return the cohort and how many came back
	 */
	CompletionStage<Retention> retentionAsync(LocalDate day, int afterDays);

}

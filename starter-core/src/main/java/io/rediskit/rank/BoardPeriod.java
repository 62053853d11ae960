package io.rediskit.rank;

/**
 * The period boards a {@link Leaderboard} keeps beside its all-time board, in the spec's time zone.
 */
public enum BoardPeriod {

	/** One board per calendar day. */
	DAILY,

	/** One board per ISO week, Monday to Sunday (weeks of the ISO week-based year: {@code 2024-W01}). */
	WEEKLY,

	/** One board per calendar month. */
	MONTHLY

}

package io.rediskit.rank;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;

/**
 * The period boards of a zone: which period holds a day, when it ends, and the periods of a range. Period names
 * are key suffixes: {@code d:2024-02-29}, {@code w:2024-W09} (ISO week), {@code m:2024-02}.
 */
final class PeriodKeys {

	private final ZoneId zone;

	PeriodKeys(ZoneId zone) {
		this.zone = zone;
	}

	/** @return the first day of the period holding {@code day} */
	static LocalDate start(BoardPeriod period, LocalDate day) {
		return switch (period) {
			case DAILY -> day;
			case WEEKLY -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
			case MONTHLY -> day.withDayOfMonth(1);
		};
	}

	/** @return the first day after the period starting at {@code start} */
	static LocalDate next(BoardPeriod period, LocalDate start) {
		return switch (period) {
			case DAILY -> start.plusDays(1);
			case WEEKLY -> start.plusWeeks(1);
			case MONTHLY -> start.plusMonths(1);
		};
	}

	/** @return the key suffix of the period holding {@code day} */
	static String name(BoardPeriod period, LocalDate day) {
		LocalDate start = start(period, day);
		return switch (period) {
			case DAILY -> "d:" + start;
			case WEEKLY -> String.format("w:%d-W%02d", start.get(IsoFields.WEEK_BASED_YEAR),
					start.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
			case MONTHLY -> "m:" + start.toString().substring(0, 7);
		};
	}

	/** @return when the period holding {@code day} ends, in ms since the epoch */
	long endMillis(BoardPeriod period, LocalDate day) {
		return next(period, start(period, day)).atStartOfDay(this.zone).toInstant().toEpochMilli();
	}

	/**
	 * @param period the period
	 * @param from a day of the first period
	 * @param to a day of the last period
	 * @param max the most periods allowed
	 * @return the names of the periods from the one holding {@code from} to the one holding {@code to}
	 */
	static List<String> range(BoardPeriod period, LocalDate from, LocalDate to, int max) {
		if (to.isBefore(from)) {
			throw new IllegalArgumentException("to must not be before from, was " + from + " to " + to);
		}
		List<String> names = new ArrayList<>();
		LocalDate last = start(period, to);
		for (LocalDate start = start(period, from); !start.isAfter(last); start = next(period, start)) {
			if (names.size() == max) {
				throw new IllegalArgumentException("A range of periods spans at most " + max + " periods; " + from
						+ " to " + to + " spans more");
			}
			names.add(name(period, start));
		}
		return names;
	}

}

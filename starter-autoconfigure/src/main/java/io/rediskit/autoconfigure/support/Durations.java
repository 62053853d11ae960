package io.rediskit.autoconfigure.support;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people read them and as properties take them: {@code 400d}, {@code 5m}, {@code 30s},
 * {@code 1500ms}, never {@code PT9600H}. Used wherever a duration is shown to a person: startup messages and log
 * lines, the console, and the actuator descriptors meant to be read.
 */
public final class Durations {

	private static final long[] NANOS = { 86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L,
			1_000_000_000L, 1_000_000L, 1_000L, 1L };

	private static final String[] UNITS = { "d", "h", "m", "s", "ms", "us", "ns" };

	// Duration.toString(): PT0S, PT-5S, PT0.1S, PT1H30M, PT24000000H.
	private static final Pattern ISO = Pattern.compile("\\bPT(?=[-\\d])(?:-?\\d+H)?(?:-?\\d+M)?(?:-?\\d+(?:\\.\\d+)?S)?\\b");

	private Durations() {
	}

	/**
	 * The duration in the largest unit that states it exactly, in the form Spring Boot binds back to a
	 * {@code Duration}: {@code PT9600H} is {@code 400d}, {@code PT1H30M} is {@code 90m}, {@code PT1.5S} is
	 * {@code 1500ms}, zero is {@code 0s}.
	 * @param duration the duration
	 * @return the duration as a person writes it
	 */
	public static String format(Duration duration) {
		if (duration.isZero()) {
			return "0s";
		}
		if (duration.isNegative()) {
			return "-" + format(duration.negated());
		}
		long seconds = duration.getSeconds();
		int nanos = duration.getNano();
		if (nanos == 0) {
			for (int i = 0; i < 4; i++) {
				long unit = NANOS[i] / 1_000_000_000L;
				if (seconds % unit == 0) {
					return (seconds / unit) + UNITS[i];
				}
			}
		}
		for (int i = 4; i < NANOS.length; i++) {
			if (nanos % NANOS[i] == 0) {
				// seconds * (1e9 / unit) fits a long for every duration up to about 292 years in ns, far more in ms.
				long perSecond = 1_000_000_000L / NANOS[i];
				if (seconds <= Long.MAX_VALUE / perSecond) {
					return (seconds * perSecond + nanos / NANOS[i]) + UNITS[i];
				}
			}
		}
		return duration.toString();
	}

	/**
	 * A message with each duration in it as {@link Duration#toString()} writes it ({@code PT24000000H}) in the
	 * form of {@link #format} ({@code 1000000d}): for the reasons of core specs, which know no such formatter.
	 * @param text a message
	 * @return the message, durations as people write them
	 */
	public static String inText(String text) {
		Matcher matcher = ISO.matcher(text);
		StringBuilder result = new StringBuilder();
		while (matcher.find()) {
			String replacement;
			try {
				replacement = format(Duration.parse(matcher.group()));
			}
			catch (DateTimeParseException ex) {
				replacement = matcher.group();
			}
			matcher.appendReplacement(result, Matcher.quoteReplacement(replacement));
		}
		matcher.appendTail(result);
		return result.toString();
	}

}

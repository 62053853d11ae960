package io.rediskit.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import org.jspecify.annotations.Nullable;

/**
 * What to run and for how long, from the command line:
 * {@code [--warmup=2s] [--duration=5s] [--threads=16] [--rounds=3] [--out=docs/benchmarks] <benchmark>...}.
 * <p>
 * Each option may also be given as a system property with the prefix {@value #PROPERTY_PREFIX}, such as
 * {@code -Drediskit.benchmark.duration=30s}; an argument wins over a property. Durations take a unit
 * ({@code 500ms}, {@code 3s}, {@code 1m}) or ISO-8601 ({@code PT3S}).
 *
 * @param benchmarks the names of the benchmarks to run, in order
 * @param warmup how long each library runs a scenario before it is measured
 * @param duration how long each library is measured per scenario
 * @param threads how many threads call the library at once
 * @param rounds how many times each scenario runs both libraries, alternating which goes first; results are
 * the median round of each library, which keeps a burst of noise on a shared machine out of the ratio
 * @param outputDirectory where the JSON and PNG files go, relative to the working directory unless absolute
 */
public record BenchmarkOptions(List<String> benchmarks, Duration warmup, Duration duration, int threads,
		int rounds, Path outputDirectory) {

	/** Prefix of the system properties that set options. */
	public static final String PROPERTY_PREFIX = "rediskit.benchmark.";

	/** Default {@link #warmup()}: 2 seconds. */
	public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(2);

	/** Default {@link #duration()}: 5 seconds. */
	public static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);

	/** Default {@link #rounds()}: 3. */
	public static final int DEFAULT_ROUNDS = 3;

	/** Default {@link #threads()}: 16. */
	public static final int DEFAULT_THREADS = 16;

	/** Default {@link #outputDirectory()}: {@code docs/benchmarks}. */
	public static final Path DEFAULT_OUTPUT_DIRECTORY = Path.of("docs", "benchmarks");

	private static final List<String> OPTION_NAMES = List.of("warmup", "duration", "threads", "rounds", "out");

	/**
	 * Validates the options.
	 * @throws IllegalArgumentException naming the option that is out of range
	 */
	public BenchmarkOptions {
		benchmarks = List.copyOf(benchmarks);
		if (warmup.isNegative()) {
			throw new IllegalArgumentException("--warmup must not be negative, was " + format(warmup));
		}
		if (duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("--duration must be positive, was " + format(duration));
		}
		if (threads < 1) {
			throw new IllegalArgumentException("--threads must be at least 1, was " + threads);
		}
		if (rounds < 1) {
			throw new IllegalArgumentException("--rounds must be at least 1, was " + rounds);
		}
	}

	/**
	 * Reads the options from arguments, falling back to system properties and then to the defaults.
	 * @param arguments the command-line arguments
	 * @param systemProperties where {@value #PROPERTY_PREFIX}{@code *} properties are looked up
	 * @return the options
	 * @throws IllegalArgumentException if an option is unknown or malformed
	 */
	public static BenchmarkOptions parse(String[] arguments, Properties systemProperties) {
		Properties given = new Properties();
		for (String name : OPTION_NAMES) {
			String value = systemProperties.getProperty(PROPERTY_PREFIX + name);
			if (value != null) {
				given.setProperty(name, value);
			}
		}
		List<String> benchmarks = new ArrayList<>();
		for (String argument : arguments) {
			if (!argument.startsWith("--")) {
				benchmarks.add(argument);
				continue;
			}
			int equals = argument.indexOf('=');
			if (equals < 0) {
				throw new IllegalArgumentException("Option " + argument + " needs a value, such as " + argument + "=10s");
			}
			String name = argument.substring(2, equals);
			if (!OPTION_NAMES.contains(name)) {
				throw new IllegalArgumentException("Unknown option --" + name);
			}
			given.setProperty(name, argument.substring(equals + 1));
		}
		return new BenchmarkOptions(benchmarks,
				durationOption("warmup", given.getProperty("warmup"), DEFAULT_WARMUP),
				durationOption("duration", given.getProperty("duration"), DEFAULT_DURATION),
				countOption("threads", given.getProperty("threads"), DEFAULT_THREADS),
				countOption("rounds", given.getProperty("rounds"), DEFAULT_ROUNDS),
				outOption(given.getProperty("out")));
	}

	/**
	 * Formats a duration the way options are written, such as {@code 3s} or {@code 500ms}.
	 * @param duration the duration
	 * @return the short form
	 */
	public static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

	private static Duration durationOption(String name, @Nullable String value, Duration fallback) {
		if (value == null) {
			return fallback;
		}
		String text = value.trim().toLowerCase(Locale.ROOT);
		try {
			if (text.startsWith("pt")) {
				return Duration.parse(text);
			}
			if (text.endsWith("ms")) {
				return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
			}
			if (text.endsWith("s")) {
				return Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
			}
			if (text.endsWith("m")) {
				return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
			}
		}
		catch (NumberFormatException | DateTimeParseException ex) {
			// Reported below with the accepted forms.
		}
		throw new IllegalArgumentException("--" + name + " must be a duration such as 500ms, 3s, 1m or PT3S, was '"
				+ value + "'");
	}

	private static int countOption(String name, @Nullable String value, int defaultValue) {
		if (value == null) {
			return defaultValue;
		}
		try {
			return Integer.parseInt(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + value + "'");
		}
	}

	private static Path outOption(@Nullable String value) {
		if (value == null) {
			return DEFAULT_OUTPUT_DIRECTORY;
		}
		if (value.isBlank()) {
			throw new IllegalArgumentException("--out must name a directory");
		}
		return Path.of(value);
	}

}

package io.rediskit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import org.jspecify.annotations.Nullable;

/**
 * The figures one library made in the rounds of one scenario, the median that is reported, and how far the rounds
 * disagree: the <b>spread</b>, {@code (max - min) / median}. A spread above {@value #NOISY_ABOVE} (the rounds
 * disagree by more than 25% of the median) marks the figure <b>noisy</b>: the median is still reported, but the
 * machine was not quiet enough for it to be trusted, and a ratio built on it says more about the machine than
 * about the libraries.
 * <p>
 * Every benchmark builds its spreads here, through {@link BenchmarkContext#spread(String, Collection)}, which also
 * remembers the noisy ones for the summary at the end of the run, and prints them with {@link #token()} or
 * {@link #token(Map)} at the end of the scenario's line: {@code spread=12%}, {@code spread=31% NOISY},
 * {@code spread=redis-kit:4%,redisson:31%,floor:3% NOISY}, or {@code spread=n/a} for a single round, which says
 * nothing about noise. A noisy scenario is not rerun: rerunning one library's round would break the alternating
 * order the ratios rest on, and a second try on a busy machine is as likely to be noisy; rerun the benchmark on a
 * quieter machine instead.
 * <p>
 * The figures may be rates or times; the spread is a ratio either way. The median is the middle figure of the
 * sorted rounds, the upper of the two middle ones for an even count, as every benchmark has always reported it.
 */
public final class Spread {

	/** Largest spread a figure may have and not be noisy: 25% of its median. */
	public static final double NOISY_ABOVE = 0.25;

	private final double[] rounds;

	private final double median;

	private final double spread;

	private Spread(double[] rounds) {
		if (rounds.length == 0) {
			throw new IllegalArgumentException("rounds must not be empty");
		}
		for (double round : rounds) {
			if (!Double.isFinite(round)) {
				throw new IllegalArgumentException("rounds must be finite, was " + Arrays.toString(rounds));
			}
		}
		this.rounds = rounds.clone();
		double[] sorted = rounds.clone();
		Arrays.sort(sorted);
		this.median = sorted[sorted.length / 2];
		double range = sorted[sorted.length - 1] - sorted[0];
		if (sorted.length < 2) {
			this.spread = Double.NaN;
		}
		else if (range == 0) {
			this.spread = 0;
		}
		else {
			// Rounds that disagree around a median of zero or less (nothing done in most rounds) are as noisy as it
			// gets.
			this.spread = (this.median > 0) ? range / this.median : Double.POSITIVE_INFINITY;
		}
	}

	/**
	 * @param rounds one figure per round, in the order the rounds ran
	 * @return their spread
	 * @throws IllegalArgumentException if there is no round, or a figure is not finite
	 */
	public static Spread of(double... rounds) {
		return new Spread(rounds);
	}

	/**
	 * @param rounds one figure per round, in the order the rounds ran
	 * @return their spread
	 * @throws IllegalArgumentException if there is no round, or a figure is not finite
	 */
	public static Spread of(Collection<? extends Number> rounds) {
		return new Spread(rounds.stream().mapToDouble(Number::doubleValue).toArray());
	}

	/**
	 * The figure of one library over another's, round by round: each round's figure of {@code numerator} over the
	 * figure {@code denominator} made in the same round, run next to it. The median of these is the ratio to quote
	 * between two libraries that always run side by side (redis-kit and its same-script floor): a change in the
	 * machine's speed that lasts longer than the two runs (the hypervisor taking a core for a minute) moves both
	 * figures of a round and not their ratio, where a ratio of the two medians can set one library's fast round
	 * against the other's slow one.
	 * @param numerator the rounds of one library, in the order they ran
	 * @param denominator the rounds of the other, in the same order
	 * @return the spread of the round-by-round ratios, whose median is the paired ratio
	 * @throws IllegalArgumentException if they have a different number of rounds, or a round of the denominator is
	 * zero
	 */
	public static Spread paired(Spread numerator, Spread denominator) {
		if (numerator.rounds.length != denominator.rounds.length) {
			throw new IllegalArgumentException("Paired figures need as many rounds each, were "
					+ numerator.rounds.length + " and " + denominator.rounds.length);
		}
		double[] ratios = new double[numerator.rounds.length];
		for (int round = 0; round < ratios.length; round++) {
			if (denominator.rounds[round] == 0) {
				throw new IllegalArgumentException("Round " + (round + 1) + " of the denominator is zero");
			}
			ratios[round] = numerator.rounds[round] / denominator.rounds[round];
		}
		return new Spread(ratios);
	}

	/**
	 * The share of the floor to print on a scenario's line, {@link #paired paired} round by round.
	 * @param redisKit redis-kit's rounds
	 * @param floor the floor's rounds, each run next to redis-kit's round of the same number
	 * @return such as {@code of-floor=0.97 (rounds 0.95/0.97/1.01)}
	 */
	public static String ofFloorToken(Spread redisKit, Spread floor) {
		Spread paired = paired(redisKit, floor);
		StringJoiner rounds = new StringJoiner("/", " (rounds ", ")");
		for (double round : paired.rounds) {
			rounds.add(String.format(Locale.ROOT, "%.2f", round));
		}
		return String.format(Locale.ROOT, "of-floor=%.2f", paired.median()) + ((paired.rounds.length > 1) ? rounds : "");
	}

	/** @return the figure of each round, in the order they ran */
	public List<Double> rounds() {
		List<Double> rounds = new ArrayList<>(this.rounds.length);
		for (double round : this.rounds) {
			rounds.add(round);
		}
		return rounds;
	}

	/** @return the median round's figure, the one reported */
	public double median() {
		return this.median;
	}

	/**
	 * @return {@code (max - min) / median} over the rounds; {@code NaN} for a single round, infinite when the rounds
	 * disagree around a median of zero
	 */
	public double spread() {
		return this.spread;
	}

	/** @return whether the rounds disagree by more than {@value #NOISY_ABOVE} of the median */
	public boolean noisy() {
		return !Double.isNaN(this.spread) && this.spread > NOISY_ABOVE;
	}

	/** @return the end of a scenario's line for one figure: {@code spread=12%}, {@code spread=31% NOISY} */
	public String token() {
		return "spread=" + percent() + (noisy() ? " NOISY" : "");
	}

	/**
	 * The end of a scenario's line that reports several libraries.
	 * @param byLibrary each library's spread, in the order the line names them
	 * @return such as {@code spread=redis-kit:4%,redisson:31%,floor:3% NOISY}: {@code NOISY} if any is
	 */
	public static String token(Map<String, Spread> byLibrary) {
		StringJoiner spreads = new StringJoiner(",", "spread=", "");
		boolean noisy = false;
		for (Map.Entry<String, Spread> entry : byLibrary.entrySet()) {
			spreads.add(entry.getKey() + ":" + entry.getValue().percent());
			noisy |= entry.getValue().noisy();
		}
		return spreads + (noisy ? " NOISY" : "");
	}

	/**
	 * Prints a scenario's line for redis-kit beside Redisson and the floor (ratio, share of the floor, spreads) and
	 * gives its result-file entry.
	 * @param label the scenario
	 * @param spreads the rounds of {@code redis-kit}, {@code redisson} and {@code floor}, in that order
	 * @return the medians, the ratio to Redisson, the share of the floor and every library's rounds
	 */
	public static Map<String, Object> reportAgainstPeerAndFloor(String label, Map<String, Spread> spreads) {
		return reportAgainstPeerAndFloor(label, spreads, null);
	}

	/**
	 * As {@link #reportAgainstPeerAndFloor(String, Map)}, with the processor time per operation of each library
	 * at the end of the line and in the result.
	 * @param label the scenario
	 * @param spreads the rounds of {@code redis-kit}, {@code redisson} and {@code floor}
	 * @param cpu the scenario's processor time per operation ({@link BenchmarkContext#cpu(String)}), or
	 * {@code null} for none
	 * @return the figures for a result file
	 */
	public static Map<String, Object> reportAgainstPeerAndFloor(String label, Map<String, Spread> spreads,
			@Nullable CpuFigures cpu) {
		double kitRate = spreads.get("redis-kit").median();
		double redissonRate = spreads.get("redisson").median();
		double floorRate = spreads.get("floor").median();
		double ofFloor = paired(spreads.get("redis-kit"), spreads.get("floor")).median();
		System.out.printf("%-26s redis-kit %,12.0f/s  redisson %,12.0f/s  floor %,12.0f/s  ratio %.2fx  of floor %.2f  %s%s%n",
				label, kitRate, redissonRate, floorRate, kitRate / redissonRate, ofFloor, token(spreads),
				(cpu != null) ? "  " + cpu.token("redisson") : "");
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("redis-kit", kitRate);
		result.put("redisson", redissonRate);
		result.put("floor", floorRate);
		result.put("ratio", kitRate / redissonRate);
		result.put("ofFloor", ofFloor);
		spreads.forEach((library, spread) -> result.put(library + " rounds", spread.toJson()));
		if (cpu != null) {
			spreads.keySet().forEach((library) -> result.put(library + " cpu", cpu.toJson(library)));
		}
		return result;
	}

	/**
	 * @return the fields a result file gives a figure: {@code byRound} (every round's figure, as measured),
	 * {@code spread} (two decimals, {@code null} for a single round) and {@code noisy}
	 */
	public Map<String, Object> toJson() {
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("byRound", rounds());
		json.put("spread", jsonSpread());
		json.put("noisy", noisy());
		return json;
	}

	/**
	 * Adds {@code spread} and {@code noisy} to a figure's fields, for a file that lists the rounds under a name of
	 * its own (such as {@code opsPerSecondByRound}).
	 * @param json the figure's fields
	 */
	public void addTo(Map<String, Object> json) {
		json.put("spread", jsonSpread());
		json.put("noisy", noisy());
	}

	private @Nullable Double jsonSpread() {
		if (Double.isNaN(this.spread)) {
			return null;
		}
		// JSON has no infinity; a spread that large is reported as the largest number it has.
		return Double.isInfinite(this.spread) ? Double.MAX_VALUE : Math.round(this.spread * 100) / 100.0;
	}

	private String percent() {
		if (Double.isNaN(this.spread)) {
			return "n/a";
		}
		return Double.isInfinite(this.spread) ? "inf" : String.format(Locale.ROOT, "%.0f%%", this.spread * 100);
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "median %.1f of %s, %s", this.median, Arrays.toString(this.rounds), token());
	}

}

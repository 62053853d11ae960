package io.rediskit.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The median of one library's rounds of a scenario, whole (latencies, counts and all, not only its rate), with
 * the {@link Spread} of the rounds' figures: what a benchmark reports for a library.
 *
 * @param round the round whose figure is the median one
 * @param spread how far the rounds' figures disagree
 * @param <R> what one round measured
 */
public record MedianRound<R>(R round, Spread spread) {

	/**
	 * Picks the median round by a figure and measures the spread of that figure, remembering it in the context when
	 * it is noisy.
	 * @param context the run
	 * @param figure names the scenario and library, such as {@code semaphore.uncontended redis-kit}
	 * @param rounds every round, in the order they ran
	 * @param figureOf the figure of a round, such as {@code Outcome::opsPerSecond}
	 * @param <R> what one round measured
	 * @return the median round and the spread
	 */
	public static <R> MedianRound<R> of(BenchmarkContext context, String figure, List<R> rounds,
			ToDoubleFunction<R> figureOf) {
		List<R> sorted = new ArrayList<>(rounds);
		sorted.sort(Comparator.comparingDouble(figureOf));
		return new MedianRound<>(sorted.get(sorted.size() / 2),
				context.spread(figure, rounds.stream().map(figureOf::applyAsDouble).toList()));
	}

}

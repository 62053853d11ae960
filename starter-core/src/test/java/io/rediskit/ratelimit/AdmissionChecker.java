package io.rediskit.ratelimit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a log of admissions, each stamped with the server time it was decided at, against the bound each
 * algorithm promises. It knows nothing of the scripts or of Redis state: only the spec and the log.
 * <ul>
 * <li>{@code SLIDING_LOG}: at most {@code limit} permits in any window {@code (t - period, t]}.</li>
 * <li>{@code FIXED_WINDOW}: at most {@code limit} per window {@code [k x period, (k + 1) x period)}.</li>
 * <li>{@code SLIDING_WINDOW}: at most {@code limit} per fixed window, and at each admission the documented
 * estimate (previous window's count weighted by the part of it the sliding window still covers, plus the current
 * window's count including the admission) within {@code limit}.</li>
 * <li>{@code TOKEN_BUCKET} and {@code GCRA}: at most {@code capacity + limit x (t2 - t1) / period} permits in
 * any span {@code [t1, t2]}.</li>
 * </ul>
 */
final class AdmissionChecker {

	private static final double TOLERANCE = 1e-6;

	private AdmissionChecker() {
	}

	/**
	 * One admission.
	 * @param micros server time of the decision
	 * @param permits permits granted
	 */
	record Admission(long micros, int permits) {
	}

	/**
	 * The worst window found.
	 * @param ratio admitted / bound in the worst window; above 1 is a violation
	 * @param where a description of that window
	 * @param admitted all permits in the log
	 */
	record Result(double ratio, String where, long admitted) {

		boolean holds() {
			return this.ratio <= 1 + TOLERANCE;
		}

	}

	static Result check(RateLimitSpec spec, List<Admission> log) {
		List<Admission> sorted = new ArrayList<>(log);
		sorted.sort(Comparator.comparingLong(Admission::micros));
		long admitted = sorted.stream().mapToLong(Admission::permits).sum();
		return switch (spec.algorithm()) {
			case SLIDING_LOG -> slidingLog(spec, sorted, admitted);
			case FIXED_WINDOW -> fixedWindows(spec, sorted, admitted);
			case SLIDING_WINDOW -> worse(fixedWindows(spec, sorted, admitted), slidingEstimate(spec, sorted, admitted));
			case TOKEN_BUCKET, GCRA -> refillBound(spec, sorted, admitted);
		};
	}

	static void assertHolds(RateLimitSpec spec, List<Admission> log) {
		Result result = check(spec, log);
		if (!result.holds()) {
			throw new AssertionError(spec.algorithm() + " admitted more than its bound: ratio " + result.ratio()
					+ " at " + result.where() + " (" + result.admitted() + " permits in total)");
		}
	}

	private static Result slidingLog(RateLimitSpec spec, List<Admission> sorted, long admitted) {
		long period = spec.periodMicros();
		Result worst = new Result(0, "no admissions", admitted);
		long sum = 0;
		int start = 0;
		for (int end = 0; end < sorted.size(); end++) {
			long t = sorted.get(end).micros();
			sum += sorted.get(end).permits();
			while (sorted.get(start).micros() <= t - period) {
				sum -= sorted.get(start).permits();
				start++;
			}
			boolean lastAtThisTime = end + 1 == sorted.size() || sorted.get(end + 1).micros() != t;
			if (lastAtThisTime) {
				worst = worse(worst, new Result((double) sum / spec.limit(), sum + " permits in the window ending at " + t,
						admitted));
			}
		}
		return worst;
	}

	private static Result fixedWindows(RateLimitSpec spec, List<Admission> sorted, long admitted) {
		Result worst = new Result(0, "no admissions", admitted);
		for (Map.Entry<Long, Long> window : windowCounts(spec, sorted).entrySet()) {
			worst = worse(worst, new Result((double) window.getValue() / spec.limit(),
					window.getValue() + " permits in the window starting at " + window.getKey(), admitted));
		}
		return worst;
	}

	private static Result slidingEstimate(RateLimitSpec spec, List<Admission> sorted, long admitted) {
		long period = spec.periodMicros();
		Map<Long, Long> counts = windowCounts(spec, sorted);
		Result worst = new Result(0, "no admissions", admitted);
		long window = Long.MIN_VALUE;
		long current = 0;
		for (int i = 0; i < sorted.size(); i++) {
			Admission admission = sorted.get(i);
			long start = admission.micros() - Math.floorMod(admission.micros(), period);
			if (start != window) {
				window = start;
				current = 0;
			}
			current += admission.permits();
			boolean lastAtThisTime = i + 1 == sorted.size() || sorted.get(i + 1).micros() != admission.micros();
			if (lastAtThisTime) {
				double elapsed = (double) (admission.micros() - window) / period;
				double estimate = counts.getOrDefault(window - period, 0L) * (1 - elapsed) + current;
				worst = worse(worst, new Result(estimate / spec.limit(),
						"estimate " + estimate + " at " + admission.micros(), admitted));
			}
		}
		return worst;
	}

	private static Result refillBound(RateLimitSpec spec, List<Admission> sorted, long admitted) {
		double rate = (double) spec.limit() / spec.periodMicros();
		double capacity = spec.capacity();
		Result worst = new Result(0, "no admissions", admitted);
		// For a span from admission i to admission j: permits(i..j) <= capacity + rate * (t_j - t_i). With prefix
		// sums S, that is S_j - rate * t_j + max over i <= j of (rate * t_i - S_(i-1)) <= capacity.
		double best = Double.NEGATIVE_INFINITY;
		long bestStart = 0;
		long bestBefore = 0;
		long prefix = 0;
		for (int j = 0; j < sorted.size(); j++) {
			Admission admission = sorted.get(j);
			double candidate = rate * admission.micros() - prefix;
			if (candidate > best) {
				best = candidate;
				bestStart = admission.micros();
				bestBefore = prefix;
			}
			prefix += admission.permits();
			boolean lastAtThisTime = j + 1 == sorted.size() || sorted.get(j + 1).micros() != admission.micros();
			if (lastAtThisTime) {
				long permits = prefix - bestBefore;
				double bound = capacity + rate * (admission.micros() - bestStart);
				worst = worse(worst, new Result(permits / bound,
						permits + " permits in [" + bestStart + ", " + admission.micros() + "], bound " + bound, admitted));
			}
		}
		return worst;
	}

	private static Map<Long, Long> windowCounts(RateLimitSpec spec, List<Admission> sorted) {
		long period = spec.periodMicros();
		Map<Long, Long> counts = new TreeMap<>();
		for (Admission admission : sorted) {
			counts.merge(admission.micros() - Math.floorMod(admission.micros(), period), (long) admission.permits(),
					Long::sum);
		}
		return counts;
	}

	private static Result worse(Result a, Result b) {
		return (b.ratio() > a.ratio()) ? b : a;
	}

}

package io.rediskit.support;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The "did you mean" of every error about a name that names nothing: the configured name closest to it, if one is
 * close enough to be a typo. Startup errors use it (a limiter of {@code @RateLimited}, of a route rule or of a
 * gateway route, the queue of {@code @QueueListener} or of a recurring job, a cache's Bloom filter), and so does
 * {@link NamedSpecs#get(String)} at run time. Only configured names are suggested, never anything evaluated,
 * received or created in code (such a name may be data the application was sent).
 * <p>
 * Closeness is the edit distance (insertions, deletions, substitutions and swaps of neighbours, letters compared
 * regardless of case): at most 1 for names up to 5 characters, 2 up to 8, 3 beyond. Of equally close names the
 * first in alphabetical order is suggested, so the message is the same on every run.
 */
public final class ClosestName {

	// Names are 1 to 64 characters (Names.RULE); longer input is no typo of one, and bounds the work.
	private static final int LONGEST = 64;

	private ClosestName() {
	}

	/**
	 * @param unknown the name that names nothing
	 * @param configured the names configured
	 * @return the configured name closest to it, if close enough
	 */
	public static Optional<String> of(String unknown, Collection<String> configured) {
		if (unknown.isEmpty() || unknown.length() > LONGEST) {
			return Optional.empty();
		}
		int bound = (unknown.length() <= 5) ? 1 : (unknown.length() <= 8) ? 2 : 3;
		@Nullable String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String name : configured) {
			if (name.equals(unknown) || Math.abs(name.length() - unknown.length()) > bound) {
				continue;
			}
			int distance = distance(unknown.toLowerCase(Locale.ROOT), name.toLowerCase(Locale.ROOT));
			if (distance <= bound && (best == null || distance < bestDistance
					|| (distance == bestDistance && name.compareTo(best) < 0))) {
				best = name;
				bestDistance = distance;
			}
		}
		return Optional.ofNullable(best);
	}

	/**
	 * @param unknown the name that names nothing
	 * @param configured the names configured
	 * @return {@code " (did you mean 'api'?)"} with the {@link #of closest} configured name, to follow the unknown
	 * name in a message, or {@code ""}
	 */
	public static String didYouMean(String unknown, Collection<String> configured) {
		return of(unknown, configured).map((name) -> " (did you mean '" + name + "'?)").orElse("");
	}

	// Optimal string alignment distance: Levenshtein's, with a swap of two neighbours as one edit.
	private static int distance(String a, String b) {
		int[][] d = new int[a.length() + 1][b.length() + 1];
		for (int i = 0; i <= a.length(); i++) {
			d[i][0] = i;
		}
		for (int j = 0; j <= b.length(); j++) {
			d[0][j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
				if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
					d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
				}
			}
		}
		return d[a.length()][b.length()];
	}

}

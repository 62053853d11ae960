package io.rediskit.rank;

import java.util.Objects;

/**
 * A member of a board with its score and its rank in the order it was read in.
 *
 * @param member the member
 * @param score its score
 * @param rank its position, 1 for the first
 */
public record RankedMember(String member, double score, long rank) {

	/**
	 * Checks the values.
	 */
	public RankedMember {
		Objects.requireNonNull(member, "member must not be null");
		if (rank < 1) {
			throw new IllegalArgumentException("rank must be at least 1, was " + rank);
		}
	}

}

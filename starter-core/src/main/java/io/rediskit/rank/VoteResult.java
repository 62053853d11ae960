package io.rediskit.rank;

/**
 * What a {@link Leaderboard#vote(String, String) vote} did.
 */
public enum VoteResult {

	/** The vote was counted into the item's score. */
	COUNTED,

	/** The voter had already voted for the item: nothing changed. */
	ALREADY_VOTED,

	/** The item was never posted, or its voting window has closed: nothing changed. */
	CLOSED

}

package io.rediskit.rank;

/**
 * Hears of the votes leaderboards count, for metrics; the calls themselves are observed as
 * {@link io.rediskit.support.RedisKitObservation#RANK_OPERATION}. Methods have empty defaults, run on the caller's
 * (or the driver's) thread and must not block; an exception thrown by a listener is logged and ignored. {@code leaderboard} is the
 * configured name, safe as a metric tag.
 */
public interface LeaderboardListener {

	/** A listener that does nothing. */
	LeaderboardListener NONE = new LeaderboardListener() {
	};

	/**
	 * A vote was answered.
	 * @param leaderboard the leaderboard's name
	 * @param result what it did
	 */
	default void onVote(String leaderboard, VoteResult result) {
	}

}

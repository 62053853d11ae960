package io.rediskit.rank;

import java.time.Duration;

/**
 * Observes leaderboard calls, for metrics. Methods have empty defaults, run on the caller's (or the driver's)
 * thread and must not block; an exception thrown by a listener is logged and ignored. {@code leaderboard} is the
 * configured name, safe as a metric tag.
 */
public interface LeaderboardListener {

	/** A listener that does nothing. */
	LeaderboardListener NONE = new LeaderboardListener() {
	};

	/**
	 * A call completed.
	 * @param leaderboard the leaderboard's name
	 * @param operation {@code write}, {@code increment}, {@code read}, {@code post} or {@code vote}
	 * @param latency time from the call to the reply
	 */
	default void onOperation(String leaderboard, String operation, Duration latency) {
	}

	/**
	 * A vote was answered.
	 * @param leaderboard the leaderboard's name
	 * @param result what it did
	 */
	default void onVote(String leaderboard, VoteResult result) {
	}

	/**
	 * Redis could not answer; the call fails with the exception.
	 * @param leaderboard the leaderboard's name
	 * @param operation as for {@link #onOperation}
	 * @param failure what went wrong
	 */
	default void onFailure(String leaderboard, String operation, RuntimeException failure) {
	}

}

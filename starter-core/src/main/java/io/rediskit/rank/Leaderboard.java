package io.rediskit.rank;

import java.time.LocalDate;
import java.util.Collection;
import java.util.OptionalDouble;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.RetentionPassedException;

/**
 * A ranking of members by score in one Redis sorted set (the all-time board), with what services otherwise
 * build by hand around it. Thread-safe; every instance of the application shares the board. Members are
 * strings, ordered among equal scores by their UTF-8 bytes ({@link RankOrder}).
 * <ul>
 * <li>Scores: {@link #set}, {@link #add} (only a new member), {@link #increment}, {@link #remove}; reads from
 * {@link Board}.</li>
 * <li>Period boards: {@link #increment} also adds to the board of the current day, ISO week and month kept by the
 * spec ({@link LeaderboardSpec#periods()}), in the same script; a period board expires
 * {@link LeaderboardSpec#periodRetention()} after its period ends. {@link #set}, {@link #add}, {@link #remove} and
 * votes change the all-time board only. The period of an increment is chosen by the registry's clock in the
 * spec's zone: an application clock a few seconds off puts increments of those seconds in the neighbouring
 * period. {@link #period} reads one board, {@link #periods} the union of a range (computed and cached).</li>
 * <li>Votes (a spec {@link LeaderboardSpec#voting() with voting}): {@link #post} enters an item with its posting
 * time (the server's, in seconds since the epoch) as its score; {@link #vote} adds
 * {@link LeaderboardSpec#voteWeight()} (in seconds) once per voter per item, checked and counted in one script,
 * until {@link LeaderboardSpec#voteWindow()} after the posting. So an item's score is its posting time plus its
 * votes times the weight, and a newer item needs fewer votes to rank as high.</li>
 * <li>Groups: {@link #addToGroup} puts members in a named group; {@link #group} ranks the members of a group by
 * their all-time scores (the intersection, computed and cached).</li>
 * </ul>
 * Every call is one round trip, and all keys of one leaderboard share its hash tag, so unions and intersections
 * work on Redis Cluster (where one leaderboard lives on one master). The all-time board and the groups have no
 * TTL: they are kept until {@link #delete()}. An outage fails the call with Spring's {@code DataAccessException},
 * ends its observation as {@code error} and logs a throttled warning.
 */
public interface Leaderboard extends Board {

	/** @return the leaderboard's name */
	String name();

	/** @return its spec */
	LeaderboardSpec spec();

	/**
	 * Sets a member's score on the all-time board.
	 * @param member the member
	 * @param score its score, a finite number
	 */
	void set(String member, double score);

	/**
	 * Adds a member with a score unless it is on the all-time board already.
	 * @param member the member
	 * @param score its score, a finite number
	 * @return whether it was added
	 */
	boolean add(String member, double score);

	/**
	 * Adds to a member's score on the all-time board and on the current period boards, in one script.
	 * @param member the member; a new member starts at 0
	 * @param delta what to add, a finite number (negative to subtract)
	 * @return its new all-time score
	 * @throws RetentionPassedException if a current period board would expire as it is written (a registry
	 * clock far behind the server's): nothing is written
	 */
	double increment(String member, double delta);

	/**
	 * Removes a member from the all-time board (period boards keep it until they expire).
	 * @param member the member
	 * @return whether it was on the board
	 */
	boolean remove(String member);

	/**
	 * A member's all-time score.
	 * @param member the member
	 * @return its score, or empty
	 */
	OptionalDouble score(String member);

	/**
	 * Posts an item for voting: its score is its posting time in seconds (the server's clock), and it takes votes
	 * for {@link LeaderboardSpec#voteWindow()}.
	 * @param item the item
	 * @return whether it was posted; {@code false} if it is on the board already (a repost changes nothing)
	 * @throws IllegalStateException if the spec has no voting
	 */
	boolean post(String item);

	/**
	 * Counts one vote of a voter for an item, at most once per voter per item: checked, recorded and added to the
	 * score in one script.
	 * @param item a posted item
	 * @param voter who votes
	 * @return what the vote did
	 * @throws IllegalStateException if the spec has no voting
	 */
	VoteResult vote(String item, String voter);

	/**
	 * Puts members in a group.
	 * @param group the group, such as a category
	 * @param members the members; none is a no-op
	 */
	void addToGroup(String group, Collection<String> members);

	/**
	 * Takes members out of a group.
	 * @param group the group
	 * @param members the members; none is a no-op
	 */
	void removeFromGroup(String group, Collection<String> members);

	/**
	 * The board of one period.
	 * @param period a period the spec keeps
	 * @param day any day in the period, in the spec's zone
	 * @return its board
	 * @throws IllegalArgumentException if the spec does not keep that period
	 */
	Board period(BoardPeriod period, LocalDate day);

	/**
	 * The union of the boards of a range of periods (a member's score is the sum of its period scores), computed
	 * by the server and cached for {@link LeaderboardSpec#viewCacheTtl()}.
	 * @param period a period the spec keeps
	 * @param from a day in the first period
	 * @param to a day in the last period, not before {@code from}
	 * @return the view
	 * @throws IllegalArgumentException if the spec does not keep that period, or the range spans more than
	 * {@value RedisLeaderboard#MAX_RANGE_PERIODS} periods
	 */
	Board periods(BoardPeriod period, LocalDate from, LocalDate to);

	/**
	 * The members of a group ranked by their all-time scores, computed by the server and cached for
	 * {@link LeaderboardSpec#viewCacheTtl()}.
	 * @param group the group
	 * @return the view
	 */
	Board group(String group);

	/**
	 * Deletes the all-time board. Period boards, posting and voter keys and cached views expire on their own;
	 * groups stay until {@link #deleteGroup}. Administrative, without an async form.
	 */
	void delete();

	/**
	 * Deletes a group. Administrative, without an async form.
	 * @param group the group
	 */
	void deleteGroup(String group);

	/**
	 * {@link #set} without blocking.
	 * @param member the member
	 * @param score its score
	 * @return completed when written
	 */
	CompletionStage<Void> setAsync(String member, double score);

	/**
	 * {@link #add} without blocking.
	 * @param member the member
	 * @param score its score
	 * @return whether it was added
	 */
	CompletionStage<Boolean> addAsync(String member, double score);

	/**
	 * {@link #increment} without blocking.
	 * @param member the member
	 * @param delta what to add
	 * @return its new all-time score
	 */
	CompletionStage<Double> incrementAsync(String member, double delta);

	/**
	 * {@link #remove} without blocking.
	 * @param member the member
	 * @return whether it was on the board
	 */
	CompletionStage<Boolean> removeAsync(String member);

	/**
	 * {@link #score} without blocking.
	 * @param member the member
	 * @return its score, or empty
	 */
	CompletionStage<OptionalDouble> scoreAsync(String member);

	/**
	 * {@link #post} without blocking.
	 * @param item the item
	 * @return whether it was posted
	 */
	CompletionStage<Boolean> postAsync(String item);

	/**
	 * {@link #vote} without blocking.
	 * @param item the item
	 * @param voter who votes
	 * @return what the vote did
	 */
	CompletionStage<VoteResult> voteAsync(String item, String voter);

	/**
	 * {@link #addToGroup} without blocking.
	 * @param group the group
	 * @param members the members
	 * @return completed when written
	 */
	CompletionStage<Void> addToGroupAsync(String group, Collection<String> members);

	/**
	 * {@link #removeFromGroup} without blocking.
	 * @param group the group
	 * @param members the members
	 * @return completed when written
	 */
	CompletionStage<Void> removeFromGroupAsync(String group, Collection<String> members);

}

package io.rediskit.rank;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The reads of a ranking: the all-time {@link Leaderboard} itself, one of its period boards, a range of periods
 * or a group. Every read is one round trip. A computed view (a range of periods, a group) is computed by the
 * server into a cached key on the first read after its cache expired, inside the read's script, so that one
 * reader computes it and every other reader within {@link LeaderboardSpec#viewCacheTtl()} reads the cache.
 * <p>
 * Ranks are 1-based. Ties (equal scores) follow the rule of {@link RankOrder}: by the members' bytes, so that
 * {@link RankOrder#HIGHEST_FIRST} is {@link RankOrder#LOWEST_FIRST} reversed.
 */
public interface Board {

	/**
	 * The highest-scored members.
	 * @param count how many, at least 1
	 * @return at most {@code count} members, highest first
	 */
	default List<RankedMember> top(int count) {
		return page(0, count, RankOrder.HIGHEST_FIRST);
	}

	/**
	 * A page of the board.
	 * @param offset how many members to skip, at least 0
	 * @param count how many to return, from 1 to {@value RedisLeaderboard#MAX_PAGE}
	 * @param order which end comes first
	 * @return the members of the page, ranked from {@code offset + 1}
	 * @throws IllegalArgumentException if an argument is out of range
	 */
	List<RankedMember> page(long offset, int count, RankOrder order);

	/**
	 * A member's rank and score.
	 * @param member the member
	 * @param order the order its rank is counted in
	 * @return its entry, or empty if it is not on the board
	 */
	Optional<RankedMember> entry(String member, RankOrder order);

	/**
	 * A member and its neighbours: "you are 1,204th; here are the five above".
	 * @param member the member
	 * @param above how many members before it, from 0 to {@value RedisLeaderboard#MAX_PAGE}
	 * @param below how many members after it, from 0 to {@value RedisLeaderboard#MAX_PAGE}
	 * @param order the order
	 * @return up to {@code above} members, the member, up to {@code below} members; empty if it is not on the
	 * board
	 */
	List<RankedMember> around(String member, int above, int below, RankOrder order);

	/** @return how many members the board has */
	long size();

	/**
	 * {@link #page} without blocking; invalid arguments throw at once.
	 * @param offset how many to skip
	 * @param count how many to return
	 * @param order which end comes first
	 * @return the page
	 */
	CompletionStage<List<RankedMember>> pageAsync(long offset, int count, RankOrder order);

	/**
	 * {@link #entry} without blocking.
	 * @param member the member
	 * @param order the order its rank is counted in
	 * @return its entry, or empty
	 */
	CompletionStage<Optional<RankedMember>> entryAsync(String member, RankOrder order);

	/**
	 * {@link #around} without blocking; invalid arguments throw at once.
	 * @param member the member
	 * @param above how many before it
	 * @param below how many after it
	 * @param order the order
	 * @return the neighbourhood, or an empty list
	 */
	CompletionStage<List<RankedMember>> aroundAsync(String member, int above, int below, RankOrder order);

	/** @return {@link #size()} without blocking */
	CompletionStage<Long> sizeAsync();

}

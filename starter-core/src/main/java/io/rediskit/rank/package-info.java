/**
 * Leaderboards: {@link io.rediskit.rank.LeaderboardRegistry} hands out {@link io.rediskit.rank.Leaderboard}s,
 * sorted sets with ranks, pages and neighbours, one vote per voter per item, daily, weekly and monthly boards kept
 * from the same increments, and grouped views computed by the server and cached briefly.
 */
@NullMarked
package io.rediskit.rank;

import org.jspecify.annotations.NullMarked;

/**
 * The {@code rank} benchmark: redis-kit's leaderboard against Redisson's {@code RScoredSortedSet}.
 */
@NullMarked
package io.rediskit.benchmarks.rank;

import org.jspecify.annotations.NullMarked;

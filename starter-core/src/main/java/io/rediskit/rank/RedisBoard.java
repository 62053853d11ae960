package io.rediskit.rank;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Stages;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The reads of one board or view of a leaderboard, through the read scripts.
 */
final class RedisBoard implements Board {

	private final BoardKeys keys;

	private final LeaderboardCalls calls;

	RedisBoard(BoardKeys keys, LeaderboardCalls calls) {
		this.keys = keys;
		this.calls = calls;
	}

	@Override
	public List<RankedMember> page(long offset, int count, RankOrder order) {
		return Stages.join(pageAsync(offset, count, order));
	}

	@Override
	public Optional<RankedMember> entry(String member, RankOrder order) {
		return Stages.join(entryAsync(member, order));
	}

	@Override
	public List<RankedMember> around(String member, int above, int below, RankOrder order) {
		return Stages.join(aroundAsync(member, above, below, order));
	}

	@Override
	public long size() {
		return Stages.join(sizeAsync());
	}

	@Override
	public CompletionStage<List<RankedMember>> pageAsync(long offset, int count, RankOrder order) {
		if (offset < 0) {
			throw new IllegalArgumentException("offset must not be negative, was " + offset);
		}
		requireCount("count", count, 1);
		Objects.requireNonNull(order, "order must not be null");
		byte[][] keysAndArgs = LeaderboardScripts.page(this.keys, offset, offset + count - 1, order);
		return this.calls.observed("read", () -> this.calls.scripts.<List<Object>>executeAsync(LeaderboardScripts.PAGE,
				ReturnType.MULTI, this.keys.numKeys(), keysAndArgs)
			.thenApply((reply) -> LeaderboardScripts.readEntries((reply != null) ? reply : List.of(), 0, offset + 1)));
	}

	@Override
	public CompletionStage<Optional<RankedMember>> entryAsync(String member, RankOrder order) {
		Objects.requireNonNull(member, "member must not be null");
		Objects.requireNonNull(order, "order must not be null");
		byte[][] keysAndArgs = LeaderboardScripts.entry(this.keys, member, order);
		return this.calls.observed("read", () -> this.calls.scripts.<List<Object>>executeAsync(LeaderboardScripts.ENTRY,
				ReturnType.MULTI, this.keys.numKeys(), keysAndArgs)
			.thenApply((reply) -> LeaderboardScripts.readEntry(member, reply)));
	}

	@Override
	public CompletionStage<List<RankedMember>> aroundAsync(String member, int above, int below, RankOrder order) {
		Objects.requireNonNull(member, "member must not be null");
		requireCount("above", above, 0);
		requireCount("below", below, 0);
		Objects.requireNonNull(order, "order must not be null");
		byte[][] keysAndArgs = LeaderboardScripts.around(this.keys, member, above, below, order);
		return this.calls.observed("read", () -> this.calls.scripts.<List<Object>>executeAsync(LeaderboardScripts.AROUND,
				ReturnType.MULTI, this.keys.numKeys(), keysAndArgs)
			.thenApply(LeaderboardScripts::readAround));
	}

	@Override
	public CompletionStage<Long> sizeAsync() {
		byte[][] keysAndArgs = LeaderboardScripts.size(this.keys);
		return this.calls.observed("read", () -> this.calls.scripts.<Long>executeAsync(LeaderboardScripts.SIZE,
				ReturnType.INTEGER, this.keys.numKeys(), keysAndArgs)
			.thenApply((reply) -> (reply != null) ? reply : 0L));
	}

	private static void requireCount(String argument, int value, int min) {
		if (value < min || value > RedisLeaderboard.MAX_PAGE) {
			throw new IllegalArgumentException(argument + " must be from " + min + " to " + RedisLeaderboard.MAX_PAGE
					+ ", was " + value);
		}
	}

}

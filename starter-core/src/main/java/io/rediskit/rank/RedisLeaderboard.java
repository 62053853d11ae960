package io.rediskit.rank;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link Leaderboard} of a {@link LeaderboardRegistry}. Keys, all in the leaderboard's hash tag:
 * {@code <prefix>rank:{<name>}} the all-time board, {@code ...:{<name>}:d:2024-02-29} (also {@code w:2024-W09},
 * {@code m:2024-02}) per period, {@code ...:group:<group>} per group, {@code ...:view:...} per cached view,
 * {@code ...:posted:<item>} and {@code ...:voters:<item>} per item open for votes.
 */
final class RedisLeaderboard implements Leaderboard {

	/** Most members one page or neighbourhood reads. */
	static final int MAX_PAGE = 1000;

	/** Most periods one range view unions: over ten years of days. */
	static final int MAX_RANGE_PERIODS = 4000;

	private static final String AREA = "rank";

	private final String name;

	private final LeaderboardSpec spec;

	private final KeyNaming keyNaming;

	private final Clock clock;

	private final PeriodKeys periodKeys;

	private final LeaderboardCalls calls;

	private final byte[] boardKey;

	private final RedisBoard allTime;

	RedisLeaderboard(String name, LeaderboardSpec spec, KeyNaming keyNaming, Clock clock, LeaderboardCalls calls) {
		this.name = name;
		this.spec = spec;
		this.keyNaming = keyNaming;
		this.clock = clock;
		this.periodKeys = new PeriodKeys(spec.zone());
		this.calls = calls;
		this.boardKey = LeaderboardScripts.bytes(keyNaming.key(AREA, name));
		this.allTime = new RedisBoard(BoardKeys.stored(this.boardKey), calls);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public LeaderboardSpec spec() {
		return this.spec;
	}

	// Reads of the all-time board

	@Override
	public List<RankedMember> page(long offset, int count, RankOrder order) {
		return this.allTime.page(offset, count, order);
	}

	@Override
	public Optional<RankedMember> entry(String member, RankOrder order) {
		return this.allTime.entry(member, order);
	}

	@Override
	public List<RankedMember> around(String member, int above, int below, RankOrder order) {
		return this.allTime.around(member, above, below, order);
	}

	@Override
	public long size() {
		return this.allTime.size();
	}

	@Override
	public CompletionStage<List<RankedMember>> pageAsync(long offset, int count, RankOrder order) {
		return this.allTime.pageAsync(offset, count, order);
	}

	@Override
	public CompletionStage<Optional<RankedMember>> entryAsync(String member, RankOrder order) {
		return this.allTime.entryAsync(member, order);
	}

	@Override
	public CompletionStage<List<RankedMember>> aroundAsync(String member, int above, int below, RankOrder order) {
		return this.allTime.aroundAsync(member, above, below, order);
	}

	@Override
	public CompletionStage<Long> sizeAsync() {
		return this.allTime.sizeAsync();
	}

	// Writes

	@Override
	public void set(String member, double score) {
		Stages.join(setAsync(member, score));
	}

	@Override
	public boolean add(String member, double score) {
		return Stages.join(addAsync(member, score));
	}

	@Override
	public double increment(String member, double delta) {
		return Stages.join(incrementAsync(member, delta));
	}

	@Override
	public boolean remove(String member) {
		return Stages.join(removeAsync(member));
	}

	@Override
	public OptionalDouble score(String member) {
		return Stages.join(scoreAsync(member));
	}

	@Override
	public boolean post(String item) {
		return Stages.join(postAsync(item));
	}

	@Override
	public VoteResult vote(String item, String voter) {
		return Stages.join(voteAsync(item, voter));
	}

	@Override
	public void addToGroup(String group, Collection<String> members) {
		Stages.join(addToGroupAsync(group, members));
	}

	@Override
	public void removeFromGroup(String group, Collection<String> members) {
		Stages.join(removeFromGroupAsync(group, members));
	}

	@Override
	public CompletionStage<Void> removeFromGroupAsync(String group, Collection<String> members) {
		byte[][] args = members(members);
		if (args.length == 0) {
			return CompletableFuture.completedFuture(null);
		}
		byte[] key = groupKey(group);
		return this.calls.observed("write",
				() -> this.calls.commands.<Long>executeAsync(LeaderboardScripts.GROUP_REMOVE, ReturnType.INTEGER, key, args)
					.thenApply((reply) -> null));
	}

	@Override
	public void delete() {
		Stages.join(this.calls.observed("write",
				() -> this.calls.commands.executeAsync(LeaderboardScripts.DELETE, ReturnType.INTEGER, this.boardKey)));
	}

	@Override
	public void deleteGroup(String group) {
		byte[] key = groupKey(group);
		Stages.join(this.calls.observed("write",
				() -> this.calls.commands.executeAsync(LeaderboardScripts.DELETE, ReturnType.INTEGER, key)));
	}

	@Override
	public CompletionStage<Void> setAsync(String member, double score) {
		byte[][] args = LeaderboardScripts.set(Objects.requireNonNull(member, "member must not be null"), score);
		return this.calls.observed("write",
				() -> this.calls.commands.<Long>executeAsync(LeaderboardScripts.SET, ReturnType.INTEGER, this.boardKey, args)
					.thenApply((reply) -> null));
	}

	@Override
	public CompletionStage<Boolean> addAsync(String member, double score) {
		byte[][] args = LeaderboardScripts.add(Objects.requireNonNull(member, "member must not be null"), score);
		return this.calls.observed("write",
				() -> this.calls.commands.<Long>executeAsync(LeaderboardScripts.SET, ReturnType.INTEGER, this.boardKey, args)
					.thenApply((reply) -> reply != null && reply == 1));
	}

	@Override
	public CompletionStage<Double> incrementAsync(String member, double delta) {
		Objects.requireNonNull(member, "member must not be null");
		return incrementAsync(member, delta, this.clock.instant(), null);
	}

	/** {@link #incrementAsync(String, double)} at a pinned instant, for tests of the period boards. */
	CompletionStage<Double> incrementAsync(String member, double delta, Instant at, @Nullable Long serverNow) {
		LocalDate day = LocalDate.ofInstant(at, this.spec.zone());
		List<byte[]> periodBoards = new ArrayList<>();
		List<Long> expiries = new ArrayList<>();
		for (BoardPeriod period : BoardPeriod.values()) {
			if (this.spec.periods().contains(period)) {
				periodBoards.add(periodKey(period, day));
				expiries.add(this.periodKeys.endMillis(period, day) + this.spec.periodRetention().toMillis());
			}
		}
		byte[][] keysAndArgs = LeaderboardScripts.increment(this.boardKey, periodBoards, expiries, member, delta,
				serverNow);
		return this.calls.observed("increment", () -> this.calls.scripts.<List<Object>>executeAsync(
				LeaderboardScripts.INCREMENT, ReturnType.MULTI, 1 + periodBoards.size(), keysAndArgs)
			.thenApply((reply) -> LeaderboardScripts.readIncrement(reply).orElseThrow(() -> new RetentionPassedException(
					"Leaderboard '" + this.name + "'", "an increment at " + at, this.spec.periodRetention(),
					Instant.ofEpochMilli(LeaderboardScripts.readRefusedExpiry(reply))))));
	}

	@Override
	public CompletionStage<Boolean> removeAsync(String member) {
		byte[] arg = LeaderboardScripts.bytes(Objects.requireNonNull(member, "member must not be null"));
		return this.calls.observed("write",
				() -> this.calls.commands.<Long>executeAsync(LeaderboardScripts.REMOVE, ReturnType.INTEGER, this.boardKey, arg)
					.thenApply((reply) -> reply != null && reply == 1));
	}

	@Override
	public CompletionStage<OptionalDouble> scoreAsync(String member) {
		// The entry script, not ZSCORE: one reading of scores whatever the protocol (RESP3 replies with a double).
		return this.allTime.entryAsync(member, RankOrder.HIGHEST_FIRST)
			.thenApply((entry) -> entry.map((found) -> OptionalDouble.of(found.score())).orElseGet(OptionalDouble::empty));
	}

	@Override
	public CompletionStage<Boolean> postAsync(String item) {
		return postAsync(item, null);
	}

	/** {@link #postAsync(String)} at a pinned server time, for tests. */
	CompletionStage<Boolean> postAsync(String item, @Nullable Long serverNow) {
		Objects.requireNonNull(item, "item must not be null");
		Duration window = requireVoting("post");
		byte[][] keysAndArgs = LeaderboardScripts.post(this.boardKey, itemKey("posted:", item), item, window.toMillis(),
				serverNow);
		return this.calls.observed("post", () -> this.calls.scripts.<Long>executeAsync(LeaderboardScripts.POST,
				ReturnType.INTEGER, 2, keysAndArgs)
			.thenApply((reply) -> reply != null && reply == 1));
	}

	@Override
	public CompletionStage<VoteResult> voteAsync(String item, String voter) {
		Objects.requireNonNull(item, "item must not be null");
		Objects.requireNonNull(voter, "voter must not be null");
		requireVoting("vote");
		double weightSeconds = Objects.requireNonNull(this.spec.voteWeight()).toMillis() / 1000.0;
		byte[][] keysAndArgs = LeaderboardScripts.vote(this.boardKey, itemKey("posted:", item), itemKey("voters:", item),
				item, voter, weightSeconds);
		return this.calls.observed("vote", () -> this.calls.scripts.<Long>executeAsync(LeaderboardScripts.VOTE,
				ReturnType.INTEGER, 3, keysAndArgs)
			.thenApply((reply) -> {
				VoteResult result = LeaderboardScripts.readVote(reply);
				this.calls.notifyVote(result);
				return result;
			}));
	}

	@Override
	public CompletionStage<Void> addToGroupAsync(String group, Collection<String> members) {
		byte[][] args = members(members);
		if (args.length == 0) {
			return CompletableFuture.completedFuture(null);
		}
		byte[] key = groupKey(group);
		return this.calls.observed("write",
				() -> this.calls.commands.<Long>executeAsync(LeaderboardScripts.GROUP_ADD, ReturnType.INTEGER, key, args)
					.thenApply((reply) -> null));
	}

	// Views

	@Override
	public Board period(BoardPeriod period, LocalDate day) {
		requirePeriod(period);
		Objects.requireNonNull(day, "day must not be null");
		return new RedisBoard(BoardKeys.stored(periodKey(period, day)), this.calls);
	}

	@Override
	public Board periods(BoardPeriod period, LocalDate from, LocalDate to) {
		requirePeriod(period);
		List<String> names = PeriodKeys.range(period, Objects.requireNonNull(from, "from must not be null"),
				Objects.requireNonNull(to, "to must not be null"), MAX_RANGE_PERIODS);
		if (names.size() == 1) {
			return period(period, from);
		}
		byte[] cacheKey = key("view:" + names.get(0) + ".." + names.get(names.size() - 1));
		List<byte[]> sources = names.stream().map(this::key).toList();
		return new RedisBoard(new BoardKeys(cacheKey, sources, "union", this.spec.viewCacheTtl().toMillis()),
				this.calls);
	}

	@Override
	public Board group(String group) {
		byte[] cacheKey = key("view:group:" + KeyNaming.encode(Objects.requireNonNull(group, "group must not be null")));
		return new RedisBoard(new BoardKeys(cacheKey, List.of(this.boardKey, groupKey(group)), "inter",
				this.spec.viewCacheTtl().toMillis()), this.calls);
	}

	private Duration requireVoting(String operation) {
		Duration window = this.spec.voteWindow();
		if (window == null) {
			throw new IllegalStateException("Leaderboard '" + this.name + "' has no voting: " + operation
					+ " needs a spec with a vote weight and a vote window");
		}
		return window;
	}

	private void requirePeriod(BoardPeriod period) {
		if (!this.spec.periods().contains(Objects.requireNonNull(period, "period must not be null"))) {
			throw new IllegalArgumentException("Leaderboard '" + this.name + "' keeps no " + period
					+ " boards; its periods are " + this.spec.periods());
		}
	}

	private static byte[][] members(Collection<String> members) {
		return members.stream()
			.map((member) -> LeaderboardScripts.bytes(Objects.requireNonNull(member, "members must not contain null")))
			.toArray(byte[][]::new);
	}

	private byte[] periodKey(BoardPeriod period, LocalDate day) {
		return key(PeriodKeys.name(period, day));
	}

	private byte[] groupKey(String group) {
		return key("group:" + KeyNaming.encode(Objects.requireNonNull(group, "group must not be null")));
	}

	private byte[] itemKey(String kind, String item) {
		// Outside the hash tag an item cannot move the slot; encoding bounds its length.
		return key(kind + KeyNaming.encode(item));
	}

	private byte[] key(String suffix) {
		return LeaderboardScripts.bytes(this.keyNaming.key(AREA, this.name, suffix));
	}

}

package io.rediskit.rank;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Leaderboards against a real redis-server: votes, period boards, groups, async calls, bad input. */
class LeaderboardTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	LeaderboardRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = registry(Clock.systemUTC());
	}

	LeaderboardRegistry registry(Clock clock) {
		return new LeaderboardRegistry(redis.scripts(), CommandExecutor.of(redis.connections()), KeyNaming.defaults(),
				List.of(), (name) -> null, clock);
	}

	@Test
	void oneVotePerVoterPerItemCountedAtomically() throws Exception {
		Leaderboard board = this.registry.create("articles",
				LeaderboardSpec.of(ZoneOffset.UTC).withVoting(Duration.ofSeconds(432), Duration.ofDays(7)));
		assertThat(board.post("a1")).isTrue();
		assertThat(board.post("a1")).isFalse();
		double posted = board.score("a1").orElseThrow();
		assertThat(posted).isCloseTo(System.currentTimeMillis() / 1000.0, org.assertj.core.data.Offset.offset(60.0));
		assertThat(board.vote("a1", "ada")).isEqualTo(VoteResult.COUNTED);
		assertThat(board.vote("a1", "ada")).isEqualTo(VoteResult.ALREADY_VOTED);
		assertThat(board.voteAsync("a1", "grace").toCompletableFuture().get(5, TimeUnit.SECONDS))
			.isEqualTo(VoteResult.COUNTED);
		assertThat(board.score("a1").orElseThrow()).isEqualTo(posted + 2 * 432);
		assertThat(board.vote("never-posted", "ada")).isEqualTo(VoteResult.CLOSED);
		assertThat(board.score("never-posted")).isEmpty();
		// The voters expire with the window: every key has a TTL except the board.
		String voters = KeyNaming.defaults().key("rank", "articles", "voters:a1");
		String postedKey = KeyNaming.defaults().key("rank", "articles", "posted:a1");
		assertThat((Long) redis.server().command("PTTL", voters)).isBetween(Duration.ofDays(7).minusMinutes(1).toMillis(),
				Duration.ofDays(7).toMillis());
		assertThat((Long) redis.server().command("PTTL", postedKey)).isPositive();
	}

	@Test
	void manyConcurrentVotesOfOneVoterCountOnce() throws Exception {
		Leaderboard board = this.registry.create("burst",
				LeaderboardSpec.of(ZoneOffset.UTC).withVoting(Duration.ofSeconds(1), Duration.ofDays(1)));
		board.post("item");
		double posted = board.score("item").orElseThrow();
		List<java.util.concurrent.CompletableFuture<VoteResult>> votes = new java.util.ArrayList<>();
		for (int i = 0; i < 200; i++) {
			votes.add(board.voteAsync("item", "voter-" + (i % 20)).toCompletableFuture());
		}
		long counted = 0;
		for (var vote : votes) {
			counted += (vote.get(10, TimeUnit.SECONDS) == VoteResult.COUNTED) ? 1 : 0;
		}
		assertThat(counted).isEqualTo(20);
		assertThat(board.score("item").orElseThrow()).isEqualTo(posted + 20);
	}

	@Test
	void votingClosesWhenTheWindowEnds() throws Exception {
		Leaderboard board = this.registry.create("short",
				LeaderboardSpec.of(ZoneOffset.UTC).withVoting(Duration.ofSeconds(60), Duration.ofSeconds(1)));
		board.post("old");
		assertThat(board.vote("old", "ada")).isEqualTo(VoteResult.COUNTED);
		String postedKey = KeyNaming.defaults().key("rank", "short", "posted:old");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		// Redis expires the posting key by its own clock; wait (bounded) until it has.
		while ((Long) redis.server().command("EXISTS", postedKey) == 1 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(board.vote("old", "grace")).isEqualTo(VoteResult.CLOSED);
		assertThat(board.post("old")).as("a repost never reopens voting").isFalse();
		assertThat(board.vote("old", "grace")).isEqualTo(VoteResult.CLOSED);
	}

	@Test
	void newerItemsNeedFewerVotes() {
		Leaderboard board = this.registry.create("hot",
				LeaderboardSpec.of(ZoneOffset.UTC).withVoting(Duration.ofSeconds(3600), Duration.ofDays(7)));
		RedisLeaderboard redisBoard = (RedisLeaderboard) board;
		long now = System.currentTimeMillis();
		redisBoard.postAsync("yesterday", now - Duration.ofDays(1).toMillis()).toCompletableFuture().join();
		redisBoard.postAsync("today", now).toCompletableFuture().join();
		for (int i = 0; i < 23; i++) {
			board.vote("yesterday", "v" + i);
		}
		assertThat(board.top(2)).extracting(RankedMember::member).containsExactly("today", "yesterday");
		board.vote("yesterday", "v23");
		board.vote("yesterday", "v24");
		assertThat(board.top(2)).extracting(RankedMember::member).containsExactly("yesterday", "today");
	}

	@Test
	void incrementsFeedThePeriodBoardsOfTheClockInTheZone() {
		// 23:30 UTC on Sunday 2024-03-31 is 01:30 on Monday 2024-04-01 in Paris: a new day, week and month there.
		Clock clock = Clock.fixed(Instant.parse("2024-03-31T23:30:00Z"), ZoneOffset.UTC);
		// A retention of 100 years keeps boards of 2024 writable.
		Leaderboard board = registry(clock).create("scores", LeaderboardSpec.of(PARIS)
			.withPeriods(Set.of(BoardPeriod.DAILY, BoardPeriod.WEEKLY, BoardPeriod.MONTHLY)).withPeriodRetention(Expiry.MAX));
		assertThat(board.increment("ada", 5)).isEqualTo(5);
		assertThat(board.increment("ada", 2.5)).isEqualTo(7.5);
		LocalDate day = LocalDate.of(2024, 4, 1);
		for (BoardPeriod period : BoardPeriod.values()) {
			assertThat(board.period(period, day).top(1)).containsExactly(new RankedMember("ada", 7.5, 1));
			assertThat(board.period(period, day.minusDays(1)).size()).isZero();
		}
		assertThat(redis.server().command("KEYS", "*")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
			.containsExactlyInAnyOrder("rk:rank:{scores}", "rk:rank:{scores}:d:2024-04-01", "rk:rank:{scores}:w:2024-W14",
					"rk:rank:{scores}:m:2024-04");
		// A period board expires its retention after the period ends.
		long monthEnd = LocalDate.of(2024, 5, 1).atStartOfDay(PARIS).toInstant().toEpochMilli();
		assertThat((Long) redis.server().command("PEXPIRETIME", "rk:rank:{scores}:m:2024-04"))
			.isEqualTo(monthEnd + Expiry.MAX.toMillis());
		// set and add change the all-time board only.
		board.set("grace", 100);
		assertThat(board.period(BoardPeriod.DAILY, day).size()).isEqualTo(1);
	}

	@Test
	void aRangeOfPeriodsIsTheirUnionComputedOnceAndCached() {
		LocalDate first = LocalDate.now(ZoneOffset.UTC).minusDays(5);
		Instant start = first.atTime(12, 0).toInstant(ZoneOffset.UTC);
		LeaderboardSpec spec = LeaderboardSpec.of(ZoneOffset.UTC).withPeriods(Set.of(BoardPeriod.DAILY))
			.withViewCacheTtl(Duration.ofMinutes(10));
		Leaderboard board = this.registry.create("range", spec);
		RedisLeaderboard redisBoard = (RedisLeaderboard) board;
		for (int day = 0; day < 3; day++) {
			Instant at = start.plus(Duration.ofDays(day));
			redisBoard.incrementAsync("ada", 1, at, at.toEpochMilli()).toCompletableFuture().join();
			redisBoard.incrementAsync("grace", day, at, at.toEpochMilli()).toCompletableFuture().join();
		}
		Board range = board.periods(BoardPeriod.DAILY, first, first.plusDays(2));
		assertThat(range.top(2)).containsExactly(new RankedMember("grace", 3, 1), new RankedMember("ada", 3, 2));
		// Cached: a later increment shows in the range after the cache TTL, not before.
		Instant last = start.plus(Duration.ofDays(2));
		redisBoard.incrementAsync("ada", 10, last, last.toEpochMilli()).toCompletableFuture().join();
		assertThat(range.entry("ada", RankOrder.HIGHEST_FIRST)).contains(new RankedMember("ada", 3, 2));
		String cache = "rk:rank:{range}:view:d:" + first + "..d:" + first.plusDays(2);
		assertThat((Long) redis.server().command("PTTL", cache)).isBetween(1L, Duration.ofMinutes(10).toMillis());
		redis.server().command("DEL", cache);
		assertThat(range.entry("ada", RankOrder.HIGHEST_FIRST)).contains(new RankedMember("ada", 13, 1));
		assertThat(range.around("grace", 1, 1, RankOrder.HIGHEST_FIRST)).extracting(RankedMember::member)
			.containsExactly("ada", "grace");
	}

	@Test
	void aGroupRanksItsMembersByTheirAllTimeScores() {
		Leaderboard board = this.registry.create("products",
				LeaderboardSpec.of(ZoneOffset.UTC).withViewCacheTtl(Duration.ofMillis(1)));
		board.set("p1", 10);
		board.set("p2", 30);
		board.set("p3", 20);
		board.set("p4", 40);
		board.addToGroup("books", List.of("p1", "p3", "p-unscored"));
		board.addToGroup("games", List.of("p2", "p4"));
		assertThat(board.group("books").top(10)).containsExactly(new RankedMember("p3", 20, 1),
				new RankedMember("p1", 10, 2));
		assertThat(board.group("games").page(0, 10, RankOrder.LOWEST_FIRST)).extracting(RankedMember::member)
			.containsExactly("p2", "p4");
		assertThat(board.group("books").size()).isEqualTo(2);
		board.removeFromGroup("books", List.of("p3"));
		String cache = "rk:rank:{products}:view:group:books";
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while ((Long) redis.server().command("EXISTS", cache) == 1 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(board.group("books").top(10)).extracting(RankedMember::member).containsExactly("p1");
		assertThat(board.group("nobody").top(10)).isEmpty();
	}

	@Test
	void aGroupViewIsComputedByTheFirstReaderAndReadByTheOthers() {
		Leaderboard board = this.registry.create("cached", LeaderboardSpec.of(ZoneOffset.UTC)
			.withViewCacheTtl(Duration.ofMinutes(5)));
		board.set("a", 1);
		board.addToGroup("g", List.of("a"));
		assertThat(board.group("g").top(5)).hasSize(1);
		board.set("b", 2);
		board.addToGroup("g", List.of("b"));
		// Within the TTL every reader sees the computed view, not a recomputation.
		assertThat(board.group("g").top(5)).hasSize(1);
		assertThat(board.group("g").size()).isEqualTo(1);
	}

	@Test
	void asyncReadsAndWrites() throws Exception {
		Leaderboard board = this.registry.create("async", LeaderboardSpec.of(ZoneOffset.UTC));
		board.setAsync("a", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(board.addAsync("a", 5).toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
		assertThat(board.incrementAsync("b", 3).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(3);
		assertThat(board.pageAsync(0, 5, RankOrder.HIGHEST_FIRST).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.containsExactly(new RankedMember("b", 3, 1), new RankedMember("a", 1, 2));
		assertThat(board.entryAsync("a", RankOrder.LOWEST_FIRST).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.contains(new RankedMember("a", 1, 1));
		assertThat(board.aroundAsync("x", 1, 1, RankOrder.LOWEST_FIRST).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.isEmpty();
		assertThat(board.sizeAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(2);
		assertThat(board.removeAsync("a").toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(board.scoreAsync("a").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEmpty();
		assertThat(board.score("b")).hasValue(3);
		board.set("small", 0.1);
		assertThat(board.score("small")).hasValue(0.1);
		board.delete();
		assertThat(board.size()).isZero();
	}

	@Test
	void badInputFailsAtOnceNamingTheArgument() {
		Leaderboard board = this.registry.create("bad", LeaderboardSpec.of(ZoneOffset.UTC));
		assertThatIllegalArgumentException().isThrownBy(() -> board.set("a", Double.NaN)).withMessageContaining("finite");
		assertThatIllegalArgumentException().isThrownBy(() -> board.incrementAsync("a", Double.POSITIVE_INFINITY))
			.withMessageContaining("finite");
		assertThatIllegalArgumentException().isThrownBy(() -> board.pageAsync(0, 0, RankOrder.HIGHEST_FIRST))
			.withMessageContaining("count");
		assertThatIllegalArgumentException().isThrownBy(() -> board.pageAsync(-1, 5, RankOrder.HIGHEST_FIRST))
			.withMessageContaining("offset");
		assertThatIllegalArgumentException().isThrownBy(() -> board.around("a", 1001, 0, RankOrder.HIGHEST_FIRST))
			.withMessageContaining("above");
		assertThatIllegalStateException().isThrownBy(() -> board.vote("a", "b")).withMessageContaining("no voting");
		assertThatIllegalArgumentException().isThrownBy(() -> board.period(BoardPeriod.DAILY, LocalDate.now()))
			.withMessageContaining("keeps no DAILY boards");
		Leaderboard daily = this.registry.create("daily", LeaderboardSpec.of(ZoneOffset.UTC).withPeriods(Set.of(BoardPeriod.DAILY)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> daily.periods(BoardPeriod.DAILY, LocalDate.of(2024, 1, 2), LocalDate.of(2024, 1, 1)))
			.withMessageContaining("to must not be before from");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> daily.periods(BoardPeriod.DAILY, LocalDate.of(2000, 1, 1), LocalDate.of(2024, 1, 1)))
			.withMessageContaining("at most 4000 periods");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> new LeaderboardSpec(ZoneOffset.UTC, Set.of(), Duration.ofHours(1), Duration.ofSeconds(1),
					Duration.ofSeconds(1), null))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("voteWindow"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> LeaderboardSpec.of(ZoneOffset.UTC).withViewCacheTtl(Duration.ofHours(2)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("viewCacheTtl"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> LeaderboardSpec.of(ZoneOffset.UTC).withPeriodRetention(Duration.ofMinutes(5)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("periodRetention"));
	}

	@Test
	void callsAreObservedAndListenersHearVotes() {
		List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
		ObservationRecorder recorder = new ObservationRecorder();
		LeaderboardRegistry listened = new LeaderboardRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), List.of(new LeaderboardListener() {
					@Override
					public void onVote(String leaderboard, VoteResult result) {
						heard.add(leaderboard + ":" + result);
					}
				}), (name) -> null, Clock.systemUTC());
		listened.setObservations(recorder.observations());
		Leaderboard board = listened.create("heard",
				LeaderboardSpec.of(ZoneOffset.UTC).withVoting(Duration.ofSeconds(1), Duration.ofDays(1)));
		board.post("i");
		board.vote("i", "v");
		board.increment("i", 1);
		board.top(1);
		assertThat(recorder.calls(RedisKitObservation.RANK_OPERATION, "success")).containsExactly("heard post",
				"heard vote", "heard increment", "heard read");
		assertThat(heard).containsExactly("heard:COUNTED");
	}

}

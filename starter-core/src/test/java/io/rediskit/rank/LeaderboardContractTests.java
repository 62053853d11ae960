package io.rediskit.rank;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.HostileNames;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What leaderboards promise on every topology (run once per {@link Topology}): every call, the unions of period
 * ranges and the intersections of groups included, runs in one slot (no CROSSSLOT), for hostile members, items,
 * voters and groups too; and leaderboards spread over the cluster's masters.
 */
class LeaderboardContractTests extends TopologyContract {

	private LeaderboardRegistry registry(Clock clock) {
		return new LeaderboardRegistry(TopologyScripts.of(this.redis), CommandExecutor.of(this.redis.connections()),
				KeyNaming.defaults(), List.of(), (name) -> null, clock);
	}

	@Test
	void periodRangesGroupsAndVotesWorkInOneSlotForHostileInput() {
		LocalDate today = LocalDate.now(ZoneOffset.UTC);
		Instant noon = today.atTime(12, 0).toInstant(ZoneOffset.UTC);
		LeaderboardSpec spec = LeaderboardSpec.of(ZoneOffset.UTC).withPeriods(Set.of(BoardPeriod.DAILY, BoardPeriod.WEEKLY))
			.withVoting(Duration.ofSeconds(10), Duration.ofHours(1));
		String name = this.redis.unique("lb");
		List<String> hostile = HostileNames.generate("m", 20, 7);
		for (int day = 0; day < 3; day++) {
			Leaderboard board = registry(Clock.fixed(noon.minus(Duration.ofDays(day)), ZoneOffset.UTC)).create(name, spec);
			for (int i = 0; i < hostile.size(); i++) {
				board.increment(hostile.get(i), i);
			}
		}
		Leaderboard board = registry(Clock.systemUTC()).create(name, spec);
		String best = hostile.get(hostile.size() - 1);
		assertThat(board.periods(BoardPeriod.DAILY, today.minusDays(2), today).top(1))
			.containsExactly(new RankedMember(best, 3.0 * (hostile.size() - 1), 1));
		assertThat(board.periods(BoardPeriod.WEEKLY, today.minusDays(14), today).entry(best, RankOrder.HIGHEST_FIRST))
			.hasValueSatisfying((entry) -> assertThat(entry.rank()).isEqualTo(1));
		String group = "{g}:%7B" + "é".repeat(300);
		board.addToGroup(group, hostile.subList(0, 5));
		assertThat(board.group(group).top(10)).extracting(RankedMember::member)
			.containsExactly(hostile.get(4), hostile.get(3), hostile.get(2), hostile.get(1), hostile.get(0));
		assertThat(board.around(hostile.get(10), 2, 2, RankOrder.HIGHEST_FIRST)).hasSize(5);
		for (String item : hostile.subList(0, 3)) {
			board.remove(item);
			assertThat(board.post(item)).isTrue();
			assertThat(board.vote(item, "{voter}")).isEqualTo(VoteResult.COUNTED);
			assertThat(board.vote(item, "{voter}")).isEqualTo(VoteResult.ALREADY_VOTED);
		}
	}

	@Test
	void leaderboardsSpreadOverTheMasters() {
		LeaderboardRegistry registry = registry(Clock.systemUTC());
		for (int i = 0; i < 60; i++) {
			registry.create(this.redis.unique("spread" + i), LeaderboardSpec.of(ZoneOffset.UTC)).set("m", i);
		}
		assertThat(this.redis.keysPerMaster("rk:rank:{*spread*")).hasSize(this.redis.masters().size())
			.allSatisfy((master, keys) -> assertThat(keys).isPositive());
	}

}

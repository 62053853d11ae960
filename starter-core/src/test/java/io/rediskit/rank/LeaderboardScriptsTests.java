package io.rediskit.rank;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/** The leaderboard scripts run directly with pinned time: replies, expiries, refusals. */
class LeaderboardScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	// Pinned a little ahead of the real clock: the expiries the scripts set are real ones.
	static final long NOW = (System.currentTimeMillis() / 1000 + 3600) * 1000;

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@Test
	void incrementSetsEachPeriodBoardsExpiry() {
		List<Object> reply = redis.scripts().execute(LeaderboardScripts.INCREMENT, ReturnType.MULTI, 3,
				LeaderboardScripts.increment(b("all"), List.of(b("day"), b("month")), List.of(NOW + 1000, NOW + 5000), "m", 2,
						NOW));
		assertThat(LeaderboardScripts.readIncrement(reply)).contains(2.0);
		assertThat(redis.server().command("PEXPIRETIME", "day")).isEqualTo(NOW + 1000);
		assertThat(redis.server().command("PEXPIRETIME", "month")).isEqualTo(NOW + 5000);
		assertThat(redis.server().command("PEXPIRETIME", "all")).isEqualTo(-1L);
	}

	@Test
	void incrementIntoAPeriodBoardPastItsExpiryWritesNothing() {
		List<Object> reply = redis.scripts().execute(LeaderboardScripts.INCREMENT, ReturnType.MULTI, 3,
				LeaderboardScripts.increment(b("all"), List.of(b("day"), b("month")), List.of(NOW + 1000, NOW), "m", 2, NOW));
		assertThat(LeaderboardScripts.readIncrement(reply)).isEmpty();
		assertThat(LeaderboardScripts.readRefusedExpiry(reply)).isEqualTo(NOW);
		assertThat(redis.server().dbSize()).isZero();
	}

	@Test
	void postScoresThePostingTimeInSecondsAndOpensTheWindow() {
		Long posted = redis.scripts().execute(LeaderboardScripts.POST, ReturnType.INTEGER, 2,
				LeaderboardScripts.post(b("board"), b("posted"), "item", 60_000, NOW + 123));
		assertThat(posted).isEqualTo(1);
		assertThat(score()).isCloseTo((NOW + 123) / 1000.0, org.assertj.core.data.Offset.offset(1e-6));
		assertThat((Long) redis.server().command("PTTL", "posted")).isBetween(59_000L, 60_000L);
		assertThat((Long) redis.scripts().execute(LeaderboardScripts.POST, ReturnType.INTEGER, 2,
				LeaderboardScripts.post(b("board"), b("posted"), "item", 60_000, NOW + 999_999))).isZero();
		assertThat(score()).isCloseTo((NOW + 123) / 1000.0, org.assertj.core.data.Offset.offset(1e-6));
	}

	@Test
	void voteCountsOncePerVoterAndExpiresTheVotersWithTheWindow() {
		redis.scripts().execute(LeaderboardScripts.POST, ReturnType.INTEGER, 2,
				LeaderboardScripts.post(b("board"), b("posted"), "item", 60_000, NOW));
		assertThat(vote("ada")).isEqualTo(VoteResult.COUNTED);
		assertThat(vote("ada")).isEqualTo(VoteResult.ALREADY_VOTED);
		assertThat(score()).isEqualTo(NOW / 1000 + 432.5);
		assertThat((Long) redis.server().command("PTTL", "voters")).isBetween(1L, 60_000L);
		redis.server().command("DEL", "posted");
		assertThat(vote("grace")).isEqualTo(VoteResult.CLOSED);
		assertThat(redis.server().command("SCARD", "voters")).isEqualTo(1L);
	}

	private static double score() {
		return Double.parseDouble((String) redis.server().command("ZSCORE", "board", "item"));
	}

	private VoteResult vote(String voter) {
		return LeaderboardScripts.readVote(redis.scripts().execute(LeaderboardScripts.VOTE, ReturnType.INTEGER, 3,
				LeaderboardScripts.vote(b("board"), b("posted"), b("voters"), "item", voter, 432.5)));
	}

	private static byte[] b(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

}

package io.rediskit.autoconfigure.rank;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Set;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.metrics.OperationMetricsAutoConfiguration;
import io.rediskit.rank.BoardPeriod;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardListener;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.VoteResult;
import io.rediskit.support.KeyNaming;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** Wiring of the leaderboard auto-configurations: beans, back-off, metrics, invalid properties. */
class RankAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				RankAutoConfiguration.class, RankMetricsAutoConfiguration.class, OperationMetricsAutoConfiguration.class,
				ObservationAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port());

	@Test
	void configuredLeaderboardsReachTheRegistryAndCallsAndVotesAreMetered() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redis-kit.leaderboard.leaderboards.articles.zone=Europe/Paris",
					"redis-kit.leaderboard.leaderboards.articles.periods=daily,monthly",
					"redis-kit.leaderboard.leaderboards.articles.vote-weight=432s",
					"redis-kit.leaderboard.leaderboards.articles.vote-window=7d",
					"redis-kit.leaderboard.leaderboards.articles.view-cache-ttl=2s")
			.run((context) -> {
				Leaderboard articles = context.getBean(LeaderboardRegistry.class).get("articles");
				assertThat(articles.spec().zone()).isEqualTo(ZoneId.of("Europe/Paris"));
				assertThat(articles.spec().periods()).isEqualTo(Set.of(BoardPeriod.DAILY, BoardPeriod.MONTHLY));
				assertThat(articles.spec().voteWeight()).isEqualTo(Duration.ofSeconds(432));
				assertThat(articles.spec().viewCacheTtl()).isEqualTo(Duration.ofSeconds(2));
				String item = "a" + System.nanoTime();
				articles.post(item);
				assertThat(articles.vote(item, "ada")).isEqualTo(VoteResult.COUNTED);
				assertThat(articles.vote(item, "ada")).isEqualTo(VoteResult.ALREADY_VOTED);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("rediskit.leaderboard.votes").tags("leaderboard", "articles", "result", "counted")
					.counter().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.leaderboard.votes").tags("leaderboard", "articles", "result", "already_voted")
					.counter().count()).isEqualTo(1);
				assertThat(meters.get("rediskit.leaderboard.operations")
					.tags("leaderboard", "articles", "operation", "post", "result", "success").timer().count()).isEqualTo(1);
			});
	}

	@Test
	void backsOffWhenDisabledOrDefinedByTheApplication() {
		this.runner.withPropertyValues("redis-kit.leaderboard.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LeaderboardRegistry.class));
		this.runner.run((context) -> assertThat(context).hasSingleBean(LeaderboardRegistry.class)
			.doesNotHaveBean(MicrometerLeaderboardListener.class));
		LeaderboardRegistry own = new LeaderboardRegistry(new LettuceConnectionFactory(), KeyNaming.defaults(),
				LeaderboardListener.NONE);
		this.runner.withBean(LeaderboardRegistry.class, () -> own)
			.run((context) -> assertThat(context.getBean(LeaderboardRegistry.class)).isSameAs(own));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			redis-kit.leaderboard.leaderboards.b.vote-weight=10s                 | redis-kit.leaderboard.leaderboards.b.vote-window must be set as well
			redis-kit.leaderboard.leaderboards.b.vote-window=1d                  | redis-kit.leaderboard.leaderboards.b.vote-weight must be set as well
			redis-kit.leaderboard.leaderboards.b.view-cache-ttl=2h               | redis-kit.leaderboard.leaderboards.b.view-cache-ttl must be from 1ms to 1h
			redis-kit.leaderboard.leaderboards.b.period-retention=5m             | redis-kit.leaderboard.leaderboards.b.period-retention must be at least 1h
			redis-kit.leaderboard.leaderboards.b.period-retention=36501d         | redis-kit.leaderboard.leaderboards.b.period-retention must be at most 36500 days
			redis-kit.leaderboard.leaderboards.b.periods=hourly                  | redis-kit.leaderboard.leaderboards.b.periods
			redis-kit.leaderboard.leaderboards.b.zone=Mars/Olympus               | redis-kit.leaderboard.leaderboards.b.zone
			redis-kit.leaderboard.leaderboards.b.votes=1                         | redis-kit.leaderboard.leaderboards.b.votes
			redis-kit.leaderboard.leaderboards[x.y].zone=UTC                     | redis-kit.leaderboard.leaderboards
			""")
	void invalidPropertiesFailStartupNamingTheProperty(String properties, String message) {
		this.runner.withPropertyValues(properties.split(",")).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(messages(context.getStartupFailure())).contains(message);
		});
	}

	private static String messages(Throwable failure) {
		StringBuilder all = new StringBuilder();
		for (Throwable ex = failure; ex != null; ex = ex.getCause()) {
			all.append(ex.getMessage()).append('\n');
		}
		return all.toString();
	}

}

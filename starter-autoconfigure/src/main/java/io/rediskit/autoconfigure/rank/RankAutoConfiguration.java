package io.rediskit.autoconfigure.rank;

import java.time.Clock;
import java.util.function.Function;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankProperties.Board;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.rank.LeaderboardListener;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.LeaderboardSpec;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures leaderboards: a {@link LeaderboardRegistry} serving the leaderboards of
 * {@code redis-kit.leaderboard.leaderboards}, picking period boards by the system clock. Off with
 * {@code redis-kit.leaderboard.enabled=false}; backs off when the application defines its own registry.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class })
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.leaderboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RankProperties.class)
public final class RankAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LeaderboardRegistry leaderboardRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			RankProperties properties, ObjectProvider<LeaderboardListener> listeners,
			ObjectProvider<Observations> observations) {
		PropertyChecks checks = new PropertyChecks();
		Function<Board, LeaderboardSpec> toSpec = (board) -> new LeaderboardSpec(board.getZone(), board.getPeriods(),
				board.getPeriodRetention(), board.getViewCacheTtl(), board.getVoteWeight(), board.getVoteWindow());
		checks.entries(properties, "redis-kit.leaderboard.", "leaderboards", "leaderboard", properties.getLeaderboards(),
				toSpec);
		checks.throwIfInvalid();
		LeaderboardRegistry registry = new LeaderboardRegistry(scripts, commands, keyNaming, listeners.orderedStream().toList(),
				ConfiguredSpecs.of(properties::getLeaderboards, toSpec), Clock.systemUTC());
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

}

package io.rediskit.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order the libraries of a scenario run in, round by round ({@link BenchmarkContext#roundOrder}): rotating, with
 * the floor always next to redis-kit so that their figures pair up round by round.
 */
class RoundOrderTests {

	@Test
	void theFloorRunsNextToRedisKitInEveryRoundAlternatelyBeforeAndAfter() {
		List<String> libraries = List.of("redis-kit", "redisson", "redisson-expirable", "lettuce-evalsha");
		assertThat(BenchmarkContext.roundOrder(libraries, 0))
			.containsExactly("redis-kit", "lettuce-evalsha", "redisson", "redisson-expirable");
		assertThat(BenchmarkContext.roundOrder(libraries, 1))
			.containsExactly("redisson", "redisson-expirable", "lettuce-evalsha", "redis-kit");
		assertThat(BenchmarkContext.roundOrder(libraries, 2))
			.containsExactly("redisson-expirable", "redis-kit", "lettuce-evalsha", "redisson");
		assertThat(BenchmarkContext.roundOrder(List.of("floor", "redis-kit"), 0)).containsExactly("redis-kit", "floor");
		assertThat(BenchmarkContext.roundOrder(List.of("floor", "redis-kit"), 1)).containsExactly("floor", "redis-kit");
	}

	@Test
	void withoutAFloorEachRoundStartsWithTheNextLibrary() {
		List<String> libraries = List.of("redis-kit", "Redisson", "bucket4j");
		assertThat(BenchmarkContext.roundOrder(libraries, 0)).containsExactly("redis-kit", "Redisson", "bucket4j");
		assertThat(BenchmarkContext.roundOrder(libraries, 1)).containsExactly("Redisson", "bucket4j", "redis-kit");
		assertThat(BenchmarkContext.roundOrder(libraries, 2)).containsExactly("bucket4j", "redis-kit", "Redisson");
		// A floor without redis-kit is an ordinary library.
		assertThat(BenchmarkContext.roundOrder(List.of("redisson", "floor"), 1)).containsExactly("floor", "redisson");
	}

}

package io.rediskit.cache;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Builds cache managers for tests as the starter would. */
final class CacheTesting {

	/** A cached value type of the trusted test package. */
	record Product(long id, String name, BigDecimal price, List<String> tags) {
	}

	/** What an application's task executor is to the manager: where reloads in the background run. */
	static final Executor REFRESHER = refresher();

	private CacheTesting() {
	}

	private static Executor refresher() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("cache-test-refresh-");
		executor.setDaemon(true);
		return executor;
	}

	static CacheJsonSerializer json() {
		return new CacheJsonSerializer(JsonMapper.builder().build(), List.of("io.rediskit.cache"));
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, ScriptExecutor scripts,
			CommandExecutor commands, CacheSpec defaults, Map<String, CacheSpec> configured,
			List<? extends CacheListener> listeners) {
		return new RedisKitCacheManager(scripts, commands, connections, KeyNaming.defaults(), json(), defaults,
				configured, listeners, Duration.ofMillis(200), null, REFRESHER, null);
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, CacheSpec defaults,
			List<? extends CacheListener> listeners, BloomFilterRegistry bloomFilters) {
		return new RedisKitCacheManager(ScriptExecutor.of(connections), CommandExecutor.of(connections), connections,
				KeyNaming.defaults(), json(), defaults, Map.of(), listeners, Duration.ofMillis(200), null, REFRESHER,
				bloomFilters);
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, CacheSpec defaults,
			List<? extends CacheListener> listeners) {
		return manager(connections, ScriptExecutor.of(connections), CommandExecutor.of(connections), defaults,
				Map.of(), listeners);
	}

}

package io.rediskit.cache;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Builds cache managers for tests as the starter would. */
final class CacheTesting {

	/** A cached value type of the trusted test package. */
	record Product(long id, String name, BigDecimal price, List<String> tags) {
	}

	private CacheTesting() {
	}

	static CacheJsonSerializer json() {
		return new CacheJsonSerializer(JsonMapper.builder().build(), List.of("io.rediskit.cache"));
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, ScriptExecutor scripts,
			CommandExecutor commands, CacheSpec defaults, Map<String, CacheSpec> configured,
			List<? extends CacheListener> listeners) {
		return new RedisKitCacheManager(scripts, commands, connections, KeyNaming.defaults(), json(), defaults,
				configured, listeners, Duration.ofMillis(200), null);
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, CacheSpec defaults,
			List<? extends CacheListener> listeners, BloomFilterRegistry bloomFilters) {
		return new RedisKitCacheManager(ScriptExecutor.of(connections), CommandExecutor.of(connections), connections,
				KeyNaming.defaults(), json(), defaults, Map.of(), listeners, Duration.ofMillis(200), null, null,
				bloomFilters);
	}

	static RedisKitCacheManager manager(RedisConnectionFactory connections, CacheSpec defaults,
			List<? extends CacheListener> listeners) {
		return manager(connections, ScriptExecutor.of(connections), CommandExecutor.of(connections), defaults,
				Map.of(), listeners);
	}

}

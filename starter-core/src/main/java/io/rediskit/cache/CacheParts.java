package io.rediskit.cache;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.bloom.BloomFilter;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * What the caches of one manager share, handed down by {@link RedisKitCacheManager}.
 *
 * @param scripts runs the cache scripts
 * @param commands runs {@code GET} and {@code PUBLISH}
 * @param keyNaming names keys and channels
 * @param values reads and writes values
 * @param listeners told of every operation
 * @param signals the subscription, or {@code null} where there is none (not Lettuce): waiters then poll and
 * near caches are refused
 * @param tracking the server-assisted tracking of the near caches, or {@code null} where there is no Lettuce
 * client
 * @param outageLogInterval the least time between two outage warnings of one cache
 * @param connectionFactory for {@code clear()}, which scans every master
 * @param refresher runs the reloads in the background (early refresh, stale-while-revalidate)
 * @param bloomFilters the Bloom filter of a name, for caches that name one
 * @param observations the manager's observations now
 */
record CacheParts(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
		RedisSerializer<Object> values, Listeners<CacheListener> listeners, @Nullable CacheSignals signals,
		@Nullable CacheTracking tracking,
		Duration outageLogInterval, RedisConnectionFactory connectionFactory, Executor refresher,
		Function<String, BloomFilter> bloomFilters, Supplier<Observations> observations) {

	static final String AREA = "cache";

	/**
	 * @param name a cache's name
	 * @return the cache's channel, on which writes, evictions, clears and load outcomes are published
	 */
	String channel(String name) {
		return this.keyNaming.areaKey(AREA, "events:" + name);
	}

	/**
	 * @param name a cache's name
	 * @param loadTimeout the cache's load timeout
	 * @return the cache's Redis calls
	 */
	CacheScripts scripts(String name, Duration loadTimeout) {
		return new CacheScripts(this.scripts, this.commands, this.keyNaming, name, channel(name),
				loadTimeout.toMillis());
	}

}

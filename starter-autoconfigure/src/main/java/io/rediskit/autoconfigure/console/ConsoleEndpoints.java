package io.rediskit.autoconfigure.console;

import java.util.function.Supplier;

import io.rediskit.autoconfigure.bloom.RedisBloomEndpoint;
import io.rediskit.autoconfigure.cache.RedisCacheEndpoint;
import io.rediskit.autoconfigure.counter.RedisCounterEndpoint;
import io.rediskit.autoconfigure.geo.RedisGeoEndpoint;
import io.rediskit.autoconfigure.id.RedisIdEndpoint;
import io.rediskit.autoconfigure.lock.RedisLocksEndpoint;
import io.rediskit.autoconfigure.queue.RedisQueuesEndpoint;
import io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint;
import io.rediskit.autoconfigure.ratelimit.RedisRateLimitEndpoint;
import io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The actuator endpoints of every area, as the console reads them: each made from the area's beans when a page asks
 * (so that no registry is created early, and an area switched off answers {@code null}), whether or not Actuator
 * exposes it; and the handles the console's actions act on, for the names those endpoints list only.
 *
 * @param locks the lock family's endpoint
 * @param lockRegistry the single-node lock's registry, for the scheduled jobs' lock state
 * @param limiters the rate limiters' endpoint
 * @param queues the queues' endpoint
 * @param queueRegistry the queues, for the actions' handles
 * @param bloom the Bloom filters' endpoint
 * @param counters the counters' endpoint
 * @param geo the geo indexes' endpoint
 * @param caches the caches' endpoint
 * @param leaderboards the leaderboards' endpoint
 * @param recentItems the recent-items lists' endpoint
 * @param ids the id generators' endpoint
 * @param cacheManager the caches, for the actions' handles
 * @param recurringJobs the recurring jobs, for the actions on them
 * @param semaphoreRegistry the semaphores, to read those other instances use
 * @param latchRegistry the latches, to read those other instances use
 */
record ConsoleEndpoints(Supplier<@Nullable RedisLocksEndpoint> locks, Supplier<@Nullable LockRegistry> lockRegistry,
		Supplier<@Nullable RedisRateLimitEndpoint> limiters, Supplier<@Nullable RedisQueuesEndpoint> queues,
		Supplier<@Nullable QueueRegistry> queueRegistry, Supplier<@Nullable RedisBloomEndpoint> bloom,
		Supplier<@Nullable RedisCounterEndpoint> counters, Supplier<@Nullable RedisGeoEndpoint> geo,
		Supplier<@Nullable RedisCacheEndpoint> caches, Supplier<@Nullable RedisLeaderboardEndpoint> leaderboards,
		Supplier<@Nullable RedisRecentItemsEndpoint> recentItems, Supplier<@Nullable RedisIdEndpoint> ids,
		Supplier<@Nullable RedisKitCacheManager> cacheManager, Supplier<@Nullable RecurringJobs> recurringJobs,
		Supplier<@Nullable SemaphoreRegistry> semaphoreRegistry, Supplier<@Nullable LatchRegistry> latchRegistry) {

	/**
	 * @param connectionFactory the application's connection
	 * @param keyTools the key tools, if configured
	 * @param bigKeyOptions the big-key report's settings, if configured
	 * @param instances the registry of live instances, if this instance keeps a heartbeat
	 * @return what {@link ConsoleData} reads
	 */
	ConsoleData.Sources sources(RedisConnectionFactory connectionFactory, Supplier<@Nullable KeyTools> keyTools,
			Supplier<@Nullable BigKeyOptions> bigKeyOptions, Supplier<@Nullable InstanceRegistry> instances) {
		return new ConsoleData.Sources(connectionFactory, this.locks, this.lockRegistry, this.limiters, this.queues,
				this::queue, this.bloom, this.counters, this.geo, this.caches, this.leaderboards, this.recentItems,
				this.ids, keyTools, bigKeyOptions, instances, this.semaphoreRegistry, this.latchRegistry);
	}

	/**
	 * @param name a queue's name
	 * @return the queue, if its endpoint lists it
	 * @throws IllegalArgumentException if it does not (the name is not echoed: it is user input)
	 */
	RedisQueue<Object> queue(String name) {
		RedisQueuesEndpoint endpoint = this.queues.get();
		QueueRegistry registry = this.queueRegistry.get();
		if (endpoint == null || registry == null || !endpoint.names().contains(name)) {
			throw new IllegalArgumentException("No queue is named so");
		}
		return registry.get(name, Object.class);
	}

	/**
	 * @param name a recurring job's name
	 * @return the recurring jobs, if they hold that job
	 * @throws IllegalArgumentException if they do not (the name is not echoed: it is user input)
	 */
	RecurringJobs recurring(String name) {
		RecurringJobs jobs = this.recurringJobs.get();
		if (jobs == null || jobs.jobs().stream().noneMatch((job) -> job.name().equals(name))) {
			throw new IllegalArgumentException("No recurring job is named so");
		}
		return jobs;
	}

	/**
	 * @param name a cache's name
	 * @return the manager to act on it through ({@link RedisKitCacheManager#clear(String)}, which makes no cache),
	 * if the caches' endpoint {@link RedisCacheEndpoint#knows knows} it: this instance lists it, or a live instance
	 * uses it
	 * @throws IllegalArgumentException if it does not (the name is not echoed: it is user input)
	 */
	RedisKitCacheManager cache(String name) {
		RedisCacheEndpoint endpoint = this.caches.get();
		RedisKitCacheManager manager = this.cacheManager.get();
		if (endpoint == null || manager == null || !endpoint.knows(name)) {
			throw new IllegalArgumentException("No cache is named so");
		}
		return manager;
	}

}

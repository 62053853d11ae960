package io.rediskit.autoconfigure.console;

import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RedisQueue;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The console's actions on queues, recurring jobs and caches: redrive dead letters (the oldest, or one chosen), delete
 * one, purge a
 * queue, pause and resume it on every instance; pause, resume or trigger a recurring job on every instance; evict one cache entry or clear a cache (one this instance lists, or one a live instance uses), near caches included. The web layer has already checked that actions are enabled and that the
 * user may take them; every call, taken or refused, is logged with the user and counted as
 * {@code rediskit.console.actions} ({@code action} = redrive | redrive-dead-letter | delete-dead-letter | purge |
 * pause | resume | evict-cache-key | clear-cache | pause-recurring | resume-recurring | trigger-recurring, {@code result} = done | refused | failed), tagged with neither user, queue or cache name, key nor message id so
 * cardinality stays bounded.
 */
final class ConsoleActions {

	private static final Log logger = LogFactory.getLog(ConsoleActions.class);

	static final String METER = "rediskit.console.actions";

	/** Redrive moves at most this many per call, so one click cannot start an unbounded move. */
	static final int MAX_REDRIVE = 10_000;

	/** The longest cache key an eviction takes: keys are identifiers, not documents. */
	static final int MAX_CACHE_KEY_LENGTH = 1024;

	private final Function<String, RedisQueue<Object>> queues;

	private final Function<String, RedisKitCacheManager> caches;

	private final Function<String, RecurringJobs> recurringJobs;

	private final Counter counter;

	/**
	 * @param queues the queue of a name the console lists, else {@link IllegalArgumentException}
	 * @param caches the manager to act on a cache of a name through, if the console knows it (lists it, or a live
	 * instance uses it), else {@link IllegalArgumentException}
	 * @param recurringJobs the recurring jobs that hold a job of a name, else {@link IllegalArgumentException}
	 * @param counter counts each action with its result
	 */
	ConsoleActions(Function<String, RedisQueue<Object>> queues, Function<String, RedisKitCacheManager> caches,
			Function<String, RecurringJobs> recurringJobs, Counter counter) {
		this.queues = queues;
		this.caches = caches;
		this.recurringJobs = recurringJobs;
		this.counter = counter;
	}

	/**
	 * Evicts one entry of a cache, on every instance's near cache too.
	 * @param user who asks, for the log
	 * @param name the cache
	 * @param key the entry's key as the cache stores it (the {@code toString()} of the method's key)
	 * @return whether it existed
	 */
	Map<String, Object> evictCacheKey(String user, String name, String key) {
		if (key.isEmpty() || key.length() > MAX_CACHE_KEY_LENGTH) {
			count("evict-cache-key", "refused");
			throw new IllegalArgumentException("key must have 1 to " + MAX_CACHE_KEY_LENGTH + " characters");
		}
		return Map.of("evicted", run("evict-cache-key", user, "cache", name, this.caches,
				(manager) -> manager.evictIfPresent(name, key) ? 1 : 0) == 1);
	}

	/**
	 * Evicts every entry of a cache, on every instance's near cache too.
	 * @param user who asks, for the log
	 * @param name the cache
	 * @return {@code cleared: true}
	 */
	Map<String, Object> clearCache(String user, String name) {
		run("clear-cache", user, "cache", name, this.caches, (manager) -> {
			manager.clear(name);
			return 1;
		});
		return Map.of("cleared", true);
	}

	/**
	 * Pauses a recurring job on every instance: its due slots are passed over until it is resumed.
	 * @param user who asks, for the log
	 * @param name the job
	 * @return {@code paused: true}
	 */
	Map<String, Object> pauseRecurring(String user, String name) {
		run("pause-recurring", user, "recurring job", name, this.recurringJobs, (jobs) -> {
			jobs.pause(name);
			return 1;
		});
		return Map.of("paused", true);
	}

	/**
	 * Resumes a paused recurring job on every instance.
	 * @param user who asks, for the log
	 * @param name the job
	 * @return {@code paused: false}
	 */
	Map<String, Object> resumeRecurring(String user, String name) {
		run("resume-recurring", user, "recurring job", name, this.recurringJobs, (jobs) -> {
			jobs.resume(name);
			return 1;
		});
		return Map.of("paused", false);
	}

	/**
	 * Enqueues one run of a recurring job now, outside its schedule.
	 * @param user who asks, for the log
	 * @param name the job
	 * @return the message's id
	 */
	Map<String, Object> triggerRecurring(String user, String name) {
		String[] id = new String[1];
		run("trigger-recurring", user, "recurring job", name, this.recurringJobs, (jobs) -> {
			id[0] = jobs.trigger(name);
			return 1;
		});
		return Map.of("triggered", id[0]);
	}

	/**
	 * Moves dead letters back to their queue, oldest first.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @param max most to move, from 1 to {@value #MAX_REDRIVE}
	 * @return how many moved
	 */
	Map<String, Object> redrive(String user, String name, int max) {
		if (max < 1 || max > MAX_REDRIVE) {
			throw new IllegalArgumentException("max must be from 1 to " + MAX_REDRIVE + ", was " + max);
		}
		return Map.of("redriven", run("redrive", user, name, (queue) -> queue.redrive(max)));
	}

	/**
	 * Moves one chosen dead letter back to its queue, with its delivery count reset.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @param id the dead letter's message id
	 * @return whether it moved ({@code false}: it is not a dead letter any more)
	 */
	Map<String, Object> redriveDeadLetter(String user, String name, String id) {
		requireId(id);
		return Map.of("redriven", run("redrive-dead-letter", user, name,
				(queue) -> queue.redriveDeadLetter(id) ? 1 : 0) == 1);
	}

	/**
	 * Deletes one chosen dead letter with its payload and reason.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @param id the dead letter's message id
	 * @return whether it was deleted ({@code false}: it is not a dead letter any more)
	 */
	Map<String, Object> deleteDeadLetter(String user, String name, String id) {
		requireId(id);
		return Map.of("deleted", run("delete-dead-letter", user, name,
				(queue) -> queue.deleteDeadLetter(id) ? 1 : 0) == 1);
	}

	private static void requireId(String id) {
		if (id.isEmpty()) {
			throw new IllegalArgumentException("id must not be empty");
		}
	}

	/**
	 * Removes every message of a queue, in every state.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @return how many there were
	 */
	Map<String, Object> purge(String user, String name) {
		return Map.of("purged", run("purge", user, name, RedisQueue::purge));
	}

	/**
	 * Pauses a queue on every instance: no listener claims a new message until it is resumed.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @return whether it is paused now
	 */
	Map<String, Object> pause(String user, String name) {
		run("pause", user, name, (queue) -> {
			queue.pause();
			return 1;
		});
		return Map.of("paused", true);
	}

	/**
	 * Resumes a paused queue on every instance.
	 * @param user who asks, for the log
	 * @param name the queue
	 * @return whether it is paused now
	 */
	Map<String, Object> resume(String user, String name) {
		run("resume", user, name, (queue) -> {
			queue.resume();
			return 1;
		});
		return Map.of("paused", false);
	}

	/**
	 * Records an action the web layer refused (no role, actions off), so refusals show in the log and the meter.
	 * @param action what was asked
	 * @param user who asked
	 * @param reason why it was refused
	 */
	void refused(String action, String user, String reason) {
		logger.warn("redis-kit console: refused " + action + " for " + user + ": " + reason);
		count(action, "refused");
	}

	private long run(String action, String user, String name, ToLongFunction<RedisQueue<Object>> operation) {
		return run(action, user, "queue", name, this.queues, operation);
	}

	private <T> long run(String action, String user, String kind, String name, Function<String, T> handles,
			ToLongFunction<T> operation) {
		T handle;
		try {
			handle = handles.apply(name);
		}
		catch (IllegalArgumentException ex) {
			count(action, "refused");
			throw ex;
		}
		try {
			long result = operation.applyAsLong(handle);
			logger.info("redis-kit console: " + user + " ran " + action + " on " + kind + " " + name + ": " + result);
			count(action, "done");
			return result;
		}
		catch (RuntimeException ex) {
			logger.warn("redis-kit console: " + action + " on " + kind + " " + name + " by " + user + " failed", ex);
			count(action, "failed");
			throw ex;
		}
	}

	private void count(String action, String result) {
		this.counter.count(action, result);
	}

	/** Counts actions; without Micrometer nothing. */
	@FunctionalInterface
	interface Counter {

		Counter NONE = (action, result) -> {
		};

		/**
		 * @param action redrive | redrive-dead-letter | delete-dead-letter | purge | pause | resume |
		 * evict-cache-key | clear-cache | pause-recurring | resume-recurring | trigger-recurring | other
		 * @param result done | refused | failed
		 */
		void count(String action, String result);

		/**
		 * @param meters the application's registry
		 * @return a counter recording {@value ConsoleActions#METER}
		 */
		static Counter of(MeterRegistry meters) {
			return (action, result) -> io.micrometer.core.instrument.Counter.builder(METER)
				.description("Actions taken or refused in the redis-kit console")
				.tag("action", action)
				.tag("result", result)
				.register(meters)
				.increment();
		}

	}

}

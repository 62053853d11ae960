package io.rediskit.recent;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link RecentItems} of a {@link RecentItemsRegistry}. Keys, all in the list's hash tag:
 * {@code <prefix>recent:{<name>}:u:<user>} per user, {@code ...:t:<bucket>} per trending bucket (the bucket's
 * number since the epoch), {@code ...:t:union:<bucket>} the cached union read during a bucket.
 */
final class RedisRecentItems implements RecentItems {

	/** Most items one trending read returns. */
	static final int MAX_TRENDING = 1000;

	private static final Log logger = LogFactory.getLog(RedisRecentItems.class);

	private static final String AREA = "recent";

	private final String name;

	private final RecentItemsSpec spec;

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final Clock clock;

	private final ObservedCalls calls;

	RedisRecentItems(String name, RecentItemsSpec spec, ScriptExecutor scripts, CommandExecutor commands,
			KeyNaming keyNaming, Clock clock, Supplier<Observations> observations) {
		this.name = name;
		this.spec = spec;
		this.scripts = scripts;
		this.commands = commands;
		this.keyNaming = keyNaming;
		this.clock = clock;
		this.calls = new ObservedCalls("Recent items", RedisKitObservation.RECENT_OPERATION, name, observations, logger);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public RecentItemsSpec spec() {
		return this.spec;
	}

	@Override
	public long view(String user, String item) {
		return Stages.join(viewAsync(user, item));
	}

	@Override
	public List<String> recent(String user, int count) {
		return Stages.join(recentAsync(user, count));
	}

	@Override
	public List<TrendingItem> trending(int count) {
		return Stages.join(trendingAsync(count));
	}

	@Override
	public void forget(String user) {
		Stages.join(forgetAsync(user));
	}

	@Override
	public CompletionStage<Long> viewAsync(String user, String item) {
		return viewAsync(user, item, null);
	}

	/** {@link #viewAsync(String, String)} at a pinned server time, for tests. */
	CompletionStage<Long> viewAsync(String user, String item, @Nullable Long serverNow) {
		Objects.requireNonNull(item, "item must not be null");
		byte[][] keysAndArgs = RecentItemsScripts.view(userKey(user), bucketKey(currentBucket()), item, this.spec,
				serverNow);
		return this.calls.observed("view", () -> this.scripts.<Long>executeAsync(RecentItemsScripts.VIEW, ReturnType.INTEGER, 2,
				keysAndArgs)
			.thenApply((reply) -> (reply != null) ? reply : 0L));
	}

	@Override
	public CompletionStage<List<String>> recentAsync(String user, int count) {
		if (count < 1 || count > this.spec.capacity()) {
			throw new IllegalArgumentException("count must be from 1 to the capacity " + this.spec.capacity()
					+ ", was " + count);
		}
		byte[] key = userKey(user);
		return this.calls.observed("recent", () -> this.commands.<List<Object>>executeAsync(RecentItemsScripts.RECENT,
				ReturnType.MULTI, key, RecentItemsScripts.recent(count))
			.thenApply(RecentItemsScripts::readRecent));
	}

	@Override
	public CompletionStage<List<TrendingItem>> trendingAsync(int count) {
		if (count < 1 || count > MAX_TRENDING) {
			throw new IllegalArgumentException("count must be from 1 to " + MAX_TRENDING + ", was " + count);
		}
		long current = currentBucket();
		List<byte[]> buckets = new ArrayList<>();
		for (long bucket = current - this.spec.trendingBuckets() + 1; bucket <= current; bucket++) {
			buckets.add(bucketKey(bucket));
		}
		byte[][] keysAndArgs = RecentItemsScripts.trending(key("t:union:" + current), buckets,
				this.spec.trendingCacheTtl().toMillis(), count);
		return this.calls.observed("trending", () -> this.scripts.<List<Object>>executeAsync(RecentItemsScripts.TRENDING,
				ReturnType.MULTI, buckets.size() + 1, keysAndArgs)
			.thenApply(RecentItemsScripts::readTrending));
	}

	@Override
	public CompletionStage<Void> forgetAsync(String user) {
		byte[] key = userKey(user);
		return this.calls.observed("forget", () -> this.commands.<Long>executeAsync(RecentItemsScripts.FORGET, ReturnType.INTEGER,
				key)
			.thenApply((reply) -> null));
	}

	private long currentBucket() {
		return Math.floorDiv(this.clock.millis(), this.spec.bucketMillis());
	}

	private byte[] userKey(String user) {
		// Outside the hash tag a user cannot move the slot; encoding bounds its length.
		return key("u:" + KeyNaming.encode(Objects.requireNonNull(user, "user must not be null")));
	}

	private byte[] bucketKey(long bucket) {
		return key("t:" + bucket);
	}

	private byte[] key(String suffix) {
		return RecentItemsScripts.bytes(this.keyNaming.key(AREA, this.name, suffix));
	}

}

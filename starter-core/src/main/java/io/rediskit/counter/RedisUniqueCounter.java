package io.rediskit.counter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import io.lettuce.core.cluster.SlotHash;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link UniqueCounter} of a {@link UniqueCounterRegistry}. Keys, all in the counter's hash tag:
 * {@code <prefix>counter:{<name>}} all time, {@code ...:{<name>}:d:2024-02-29} per bucket and
 * {@code ...:{<name>}:range:<first>..<last>} per cached range.
 */
final class RedisUniqueCounter implements UniqueCounter {

	/** Most buckets one range count merges: over ten years of days. */
	static final int MAX_RANGE_BUCKETS = 4000;

	private static final Log logger = LogFactory.getLog(RedisUniqueCounter.class);

	private static final String AREA = "counter";

	private final String name;

	private final UniqueCounterSpec spec;

	private final CounterBuckets buckets;

	private final byte[] totalKey;

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final ObservedCalls calls;

	RedisUniqueCounter(String name, UniqueCounterSpec spec, ScriptExecutor scripts, CommandExecutor commands,
			KeyNaming keyNaming, Supplier<Observations> observations) {
		this.name = name;
		this.spec = spec;
		this.buckets = new CounterBuckets(spec);
		this.totalKey = bytes(keyNaming.key(AREA, name));
		this.scripts = scripts;
		this.commands = commands;
		this.keyNaming = keyNaming;
		this.calls = new ObservedCalls("Unique counter", RedisKitObservation.COUNTER_OPERATION, name, observations,
				logger);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public UniqueCounterSpec spec() {
		return this.spec;
	}

	@Override
	public boolean addAll(Collection<String> members) {
		return Stages.join(addAllAsync(members));
	}

	@Override
	public long count() {
		return Stages.join(countAsync());
	}

	@Override
	public boolean addAll(Collection<String> members, Instant at) {
		return Stages.join(addAllAsync(members, at));
	}

	@Override
	public long count(Instant from, Instant to) {
		return Stages.join(countAsync(from, to));
	}

	@Override
	public long count(LocalDate from, LocalDate to) {
		Instant[] range = this.buckets.days(from, to);
		return count(range[0], range[1]);
	}

	@Override
	public CompletionStage<Long> countAsync(LocalDate from, LocalDate to) {
		Instant[] range = this.buckets.days(from, to);
		return countAsync(range[0], range[1]);
	}

	@Override
	public CompletionStage<Boolean> addAllAsync(Collection<String> members) {
		byte[][] args = UniqueCounterScripts.add(List.copyOf(members));
		if (args.length == 0) {
			return CompletableFuture.completedFuture(false);
		}
		return this.calls.observed("add", () -> this.commands
			.<Long>executeAsync(UniqueCounterScripts.ADD, ReturnType.INTEGER, this.totalKey, args)
			.thenApply(UniqueCounterScripts::readChanged));
	}

	@Override
	public CompletionStage<Long> countAsync() {
		return this.calls.observed("count", () -> this.commands
			.<Long>executeAsync(UniqueCounterScripts.COUNT, ReturnType.INTEGER, this.totalKey)
			.thenApply(UniqueCounterScripts::readCount));
	}

	@Override
	public CompletionStage<Boolean> addAllAsync(Collection<String> members, Instant at) {
		List<String> list = List.copyOf(members);
		Objects.requireNonNull(at, "at must not be null");
		if (list.isEmpty()) {
			return CompletableFuture.completedFuture(false);
		}
		ZonedDateTime bucket = this.buckets.start(at);
		String bucketName = this.buckets.name(bucket);
		long expiresAt = this.buckets.expiresAtMillis(bucket);
		byte[][] keysAndArgs = UniqueCounterScripts.addToBucket(bucketKey(bucketName), expiresAt, null, list);
		return this.calls.observed("add", () -> this.scripts.<Long>executeAsync(UniqueCounterScripts.ADD_TO_BUCKET,
				ReturnType.INTEGER, 1, keysAndArgs)
			.thenApply((reply) -> {
				if (UniqueCounterScripts.isPastRetention(reply)) {
					throw pastRetention(at, bucketName, expiresAt);
				}
				return UniqueCounterScripts.readChanged(reply);
			}));
	}

	private RetentionPassedException pastRetention(Instant at, String bucketName, long expiresAt) {
		Duration retention = Objects.requireNonNull(this.spec.retention(), "only a bucket with a retention expires");
		return new RetentionPassedException("Unique counter '" + this.name + "'",
				"an add at " + at + " (bucket " + bucketName + ")", retention, Instant.ofEpochMilli(expiresAt));
	}

	@Override
	public CompletionStage<Long> countAsync(Instant from, Instant to) {
		List<String> names = this.buckets.range(from, to, MAX_RANGE_BUCKETS);
		if (names.size() == 1) {
			// One bucket needs no merge, and is never stale: PFCOUNT it.
			byte[] bucket = bucketKey(names.get(0));
			return this.calls.observed("count", () -> this.commands.<Long>executeAsync(UniqueCounterScripts.COUNT,
					ReturnType.INTEGER, bucket)
				.thenApply(UniqueCounterScripts::readCount));
		}
		byte[] cacheKey = bucketKey("range:" + names.get(0) + ".." + names.get(names.size() - 1));
		List<byte[]> bucketKeys = names.stream().map(this::bucketKey).toList();
		byte[][] keysAndArgs = UniqueCounterScripts.countRange(cacheKey, bucketKeys,
				Math.max(1, this.spec.rangeCacheTtl().toMillis()));
		return this.calls.observed("count", () -> this.scripts.<Long>executeAsync(UniqueCounterScripts.COUNT_RANGE,
				ReturnType.INTEGER, bucketKeys.size() + 1, keysAndArgs)
			.thenApply(UniqueCounterScripts::readCount));
	}

	/**
	 * The union of this counter's all-time count with others': one {@code PFCOUNT} of every key off Cluster or
	 * when every key is in one hash slot, else a {@code GET} of each (all in flight at once) and the union script
	 * in a scratch slot of its own.
	 * @param others the other counters
	 * @return the estimated distinct members added to any of them
	 */
	CompletionStage<Long> countUnionAsync(List<RedisUniqueCounter> others) {
		List<byte[]> keys = new ArrayList<>(others.size() + 1);
		keys.add(this.totalKey);
		others.forEach((other) -> keys.add(other.totalKey));
		int slot = SlotHash.getSlot(this.totalKey);
		if (!this.commands.isCluster() || keys.stream().allMatch((key) -> SlotHash.getSlot(key) == slot)) {
			byte[][] rest = keys.subList(1, keys.size()).toArray(byte[][]::new);
			return this.calls.observed("union", () -> this.commands.<Long>executeAsync(UniqueCounterScripts.COUNT,
					ReturnType.INTEGER, this.totalKey, rest)
				.thenApply(UniqueCounterScripts::readCount));
		}
		// A tag no counter can have (names hold no ':'), random so that unions spread over a cluster's masters.
		String scratch = "union:" + Long.toHexString(ThreadLocalRandom.current().nextLong());
		List<byte[]> scratchKeys = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			scratchKeys.add(bytes(this.keyNaming.key(AREA, scratch, Integer.toString(i))));
		}
		return this.calls.observed("union", () -> {
			List<CompletableFuture<byte @Nullable []>> reads = keys.stream()
				.map((key) -> this.commands.<byte[]>executeAsync(UniqueCounterScripts.READ, ReturnType.VALUE, key)
					.toCompletableFuture())
				.toList();
			return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
				.thenCompose((read) -> this.scripts.<Long>executeAsync(UniqueCounterScripts.COUNT_UNION,
						ReturnType.INTEGER, scratchKeys.size(),
						UniqueCounterScripts.countUnion(scratchKeys, reads.stream().map(CompletableFuture::join).toList())))
				.thenApply(UniqueCounterScripts::readCount);
		});
	}

	private byte[] bucketKey(String suffix) {
		return bytes(this.keyNaming.key(AREA, this.name, suffix));
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

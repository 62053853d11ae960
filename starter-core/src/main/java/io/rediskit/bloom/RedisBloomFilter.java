package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link BloomFilter} of a {@link BloomFilterRegistry}. Every call goes through one async pipeline (the
 * sync methods wait for it): choose bitmap or native once, group the items by shard, one call per shard, read
 * the replies, tell the listeners.
 */
final class RedisBloomFilter implements BloomFilter {

	/**
	 * Items per call to Redis. Measured on Redis 7.0 (2 cores): a call of 1 000 items (7 000 bits at 1%) runs about
	 * 3.5 ms on the server; larger batches go as several calls.
	 */
	static final int ITEMS_PER_CALL = 1_000;

	/**
	 * Items per plain {@code BITFIELD} (an add to a known shard, a lookup). Smaller than a script's share: the
	 * calls of one batch go pipelined, so Redis runs the first while the client still encodes the next and reads
	 * the replies as they come, where one call of the whole batch would make each side wait for the other. Chosen by
	 * short A/B runs of batches of 1 000 and 10 000 items at 1% (two rounds, one busy 2-core machine): calls of 100
	 * items did 1.3x to 1.9x the items per second of calls of 250, 500 or 1 000, for this filter and for the bare
	 * driver sending the same commands alike; calls of 50 were no faster.
	 */
	static final int ITEMS_PER_PLAIN_CALL = 100;

	private static final Log logger = LogFactory.getLog(RedisBloomFilter.class);

	private static final String AREA = "bloom";

	private final String name;

	private final BloomFilterSpec spec;

	private final BloomMode mode;

	private final BloomLayout layout;

	private final byte[][] shardKeys;

	// Per shard, its completeness mark in its slot (see BloomSeeding).
	private final byte[][] markKeys;

	private final long ttlMillis;

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final BloomCapabilities capabilities;

	private final BloomCalls calls;

	// Told of a check that found the filter not complete: the registry seeds it again if it has a seed.
	private final Consumer<BloomFilter> incomplete;

	// Checked once per handle: a sharded filter's shard 0 (which every sizing has) and a native filter's capacity.
	private final AtomicReference<@Nullable CompletableFuture<Void>> opened = new AtomicReference<>();

	// Per shard, 1 once an add script has answered for it: the shard then exists with this filter's sizing.
	private final AtomicIntegerArray knownShards;

	RedisBloomFilter(String name, BloomFilterSpec spec, BloomMode mode, long maxShardBits, ScriptExecutor scripts,
			CommandExecutor commands, KeyNaming keyNaming, BloomCapabilities capabilities,
			Listeners<BloomFilterListener> listeners, Supplier<Observations> observations,
			Consumer<BloomFilter> incomplete) {
		this.name = name;
		this.spec = spec;
		this.mode = mode;
		this.layout = BloomLayout.of(spec, maxShardBits);
		this.shardKeys = new byte[this.layout.shards()][];
		this.markKeys = new byte[this.layout.shards()][];
		this.knownShards = new AtomicIntegerArray(this.layout.shards());
		for (int i = 0; i < this.shardKeys.length; i++) {
			// Shard 0 keeps the filter's own tag under every sizing; the others get tags of their own, so a large
			// filter spreads over a cluster's masters. Configured names hold no ':', so no filter owns these.
			String shard = (i == 0) ? name : name + ":" + i;
			this.shardKeys[i] = keyNaming.key(AREA, shard).getBytes(StandardCharsets.UTF_8);
			this.markKeys[i] = keyNaming.key(AREA, shard, BloomSeeding.MARK).getBytes(StandardCharsets.UTF_8);
		}
		Duration ttl = spec.ttl();
		this.ttlMillis = (ttl != null) ? Math.max(1, ttl.toMillis()) : 0;
		this.scripts = scripts;
		this.commands = commands;
		this.capabilities = capabilities;
		this.calls = new BloomCalls(name, listeners, observations, logger);
		this.incomplete = incomplete;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public BloomFilterSpec spec() {
		return this.spec;
	}

	/** @return the keys of the filter's shards, for tests */
	List<String> keys() {
		return Arrays.stream(this.shardKeys).map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

	@Override
	public List<Boolean> addAllBytes(Collection<byte[]> items) {
		return Stages.join(addAllBytesAsync(items));
	}

	@Override
	public List<Boolean> mightContainAllBytes(Collection<byte[]> items) {
		return Stages.join(mightContainAllBytesAsync(items));
	}

	@Override
	public CompletionStage<List<Boolean>> addAllBytesAsync(Collection<byte[]> items) {
		List<byte[]> list = List.copyOf(items);
		if (list.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return this.calls.observed(BloomOperation.ADD, list.size(), () -> addAll(list));
	}

	private CompletionStage<List<Boolean>> addAll(List<byte[]> list) {
		return useNative().thenCompose((nativeFilter) -> nativeFilter
				? openNative().thenCompose((ignored) -> this.scripts.<List<Object>>executeAsync(
						NativeBloomCommands.INSERT_SCRIPT, ReturnType.MULTI, 2, NativeBloomCommands.script(this.shardKeys[0],
								this.markKeys[0], null, NativeBloomCommands.insert(this.spec, list))))
					.thenApply((reply) -> NativeBloomCommands.readFlags(reply, list.size()))
				: openSharded().thenCompose((ignored) -> perShard(list, this::addToShard)));
	}

	@Override
	public CompletionStage<List<Boolean>> mightContainAllBytesAsync(Collection<byte[]> items) {
		List<byte[]> list = List.copyOf(items);
		if (list.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return this.calls.observed(BloomOperation.CONTAINS, list.size(), () -> lookUpAll(list));
	}

	private CompletionStage<List<Boolean>> lookUpAll(List<byte[]> list) {
		return useNative().thenCompose((nativeFilter) -> nativeFilter
				? openNative().thenCompose((ignored) -> this.commands.<List<Object>>executeAsync(NativeBloomCommands.EXISTS,
						ReturnType.MULTI, this.shardKeys[0], NativeBloomCommands.exists(list)))
					.thenApply((reply) -> NativeBloomCommands.readFlags(reply, list.size()))
				: openSharded().thenCompose((ignored) -> perShard(list, this::lookUpInShard)));
	}

	/**
	 * Adds to a shard. The first add of a handle to a shard (and every add of a filter with a TTL) goes through
	 * the add script, which writes the sizing header (and TTL) of a new shard before its bits. Once the shard is
	 * known to hold this filter, an add is plain {@code BITFIELD}s (one per {@link #ITEMS_PER_PLAIN_CALL} items,
	 * pipelined), each reading the header in the same atomic command: no script, no second look at the sizing. Should that header be gone (the filter was deleted since),
	 * the command has just set bits in a new key without a header, and the script runs at once with the same
	 * items to write it; the bits are the same either way. A filter with a TTL never takes the plain path: a key
	 * it recreated would have no TTL until the script ran, and none at all were the client to stop in between.
	 */
	private CompletionStage<List<Boolean>> addToShard(int shard, long[] offsets, int items) {
		if (this.ttlMillis == 0 && this.knownShards.get(shard) == 1) {
			return inCalls(offsets, items, ITEMS_PER_PLAIN_CALL, (part, n) -> this.commands
				.<List<Object>>executeAsync(BloomScripts.SET_BITS, ReturnType.MULTI, this.shardKeys[shard],
						BloomScripts.set(part))
				.thenCompose((reply) -> {
					List<Boolean> added;
					try {
						added = BloomScripts.readSet(reply, this.name, this.layout, n);
					}
					catch (BloomFilterSizingException ex) {
						this.knownShards.set(shard, 0);
						throw ex;
					}
					if (BloomScripts.hasHeader(reply)) {
						return CompletableFuture.completedFuture(added);
					}
					// The old bits in the reply are the answer; the script only writes the sizing beside them.
					this.knownShards.set(shard, 0);
					return addByScript(shard, part, n, BloomSeeding.NO_TOKEN).thenApply((again) -> added);
				}));
		}
		return inCalls(offsets, items, ITEMS_PER_CALL,
				(part, n) -> addByScript(shard, part, n, BloomSeeding.NO_TOKEN));
	}

	private CompletionStage<List<Boolean>> addByScript(int shard, long[] offsets, int items, byte[] token) {
		return this.scripts.<List<Object>>executeAsync(BloomScripts.ADD, ReturnType.MULTI, 2,
				BloomScripts.add(this.shardKeys[shard], this.markKeys[shard], this.layout, this.ttlMillis, token, offsets))
			.thenApply((reply) -> {
				List<Boolean> added = BloomScripts.readAdd(reply, this.name, this.layout, items);
				this.knownShards.set(shard, 1);
				return added;
			});
	}

	private CompletionStage<List<Boolean>> lookUpInShard(int shard, long[] offsets, int items) {
		return inCalls(offsets, items, ITEMS_PER_PLAIN_CALL, (part, n) -> this.commands
			.<List<Object>>executeAsync(BloomScripts.LOOKUP, ReturnType.MULTI, this.shardKeys[shard],
					BloomScripts.lookup(part))
			.thenApply((reply) -> BloomScripts.readLookup(reply, this.name, this.layout, n)));
	}

	/**
	 * Sends a shard's items in calls of at most {@code perCall} items, all at once on the connection (pipelined:
	 * one network round trip), and puts the answers back in item order. Redis serves other clients between the
	 * calls, where one call of 10 000 items would hold it for tens of milliseconds. Adds are idempotent, so a batch
	 * that fails half-way may be sent again.
	 */
	private CompletionStage<List<Boolean>> inCalls(long[] offsets, int items, int perCall, ShardPart call) {
		if (items <= perCall) {
			return call.run(offsets, items);
		}
		int hashes = this.layout.hashes();
		List<CompletableFuture<List<Boolean>>> parts = new ArrayList<>();
		for (int first = 0; first < items; first += perCall) {
			int n = Math.min(perCall, items - first);
			long[] part = Arrays.copyOfRange(offsets, first * hashes, (first + n) * hashes);
			parts.add(call.run(part, n).toCompletableFuture());
		}
		return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply((done) -> {
			List<Boolean> answers = new ArrayList<>(items);
			for (CompletableFuture<List<Boolean>> part : parts) {
				answers.addAll(part.join());
			}
			return answers;
		});
	}

	/** Hashes the items, sends one call per shard they fall in, and puts the answers back in item order. */
	private CompletionStage<List<Boolean>> perShard(List<byte[]> items, ShardCall call) {
		int hashes = this.layout.hashes();
		if (this.layout.shards() == 1) {
			long[] offsets = new long[items.size() * hashes];
			for (int i = 0; i < items.size(); i++) {
				this.layout.offsets(BloomHashing.hash128(items.get(i)), offsets, i * hashes);
			}
			return call.run(0, offsets, items.size());
		}
		int shards = this.layout.shards();
		long[][] hashed = new long[items.size()][];
		int[] shardOf = new int[items.size()];
		int[] counts = new int[shards];
		for (int i = 0; i < items.size(); i++) {
			hashed[i] = BloomHashing.hash128(items.get(i));
			shardOf[i] = this.layout.shard(hashed[i]);
			counts[shardOf[i]]++;
		}
		List<CompletableFuture<List<Boolean>>> replies = new ArrayList<>();
		int[][] members = new int[shards][];
		for (int shard = 0; shard < shards; shard++) {
			if (counts[shard] == 0) {
				continue;
			}
			members[shard] = new int[counts[shard]];
			long[] offsets = new long[counts[shard] * hashes];
			int n = 0;
			for (int i = 0; i < items.size(); i++) {
				if (shardOf[i] == shard) {
					members[shard][n] = i;
					this.layout.offsets(hashed[i], offsets, n * hashes);
					n++;
				}
			}
			replies.add(call.run(shard, offsets, n).toCompletableFuture());
		}
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenApply((done) -> {
			Boolean[] answers = new Boolean[items.size()];
			int reply = 0;
			for (int shard = 0; shard < shards; shard++) {
				if (members[shard] == null) {
					continue;
				}
				List<Boolean> shardAnswers = replies.get(reply++).join();
				for (int j = 0; j < members[shard].length; j++) {
					answers[members[shard][j]] = shardAnswers.get(j);
				}
			}
			return Arrays.asList(answers);
		});
	}

	private CompletionStage<Boolean> useNative() {
		return switch (this.mode) {
			case BITMAP -> CompletableFuture.completedFuture(false);
			// Native filters cannot carry a TTL set atomically with them, nor shard: those stay bitmaps.
			case AUTO -> (this.spec.ttl() != null || this.layout.shards() > 1) ? CompletableFuture.completedFuture(false)
					: this.capabilities.nativeFilters();
			case NATIVE -> this.capabilities.nativeFilters().thenApply((available) -> {
				if (!available) {
					throw new IllegalStateException("Bloom filter '" + this.name + "' is in native mode, but the Redis"
							+ " server offers no BF.* commands (RedisBloom, or Redis 8): set redis-kit.bloom.mode to auto"
							+ " or bitmap");
				}
				return true;
			});
		};
	}

	/** A sharded filter checks shard 0's header once: a filter of other sizing always has a shard 0. */
	private CompletionStage<Void> openSharded() {
		if (this.layout.shards() == 1) {
			return CompletableFuture.completedFuture(null);
		}
		return once(() -> this.commands.<List<Object>>executeAsync(BloomScripts.LOOKUP, ReturnType.MULTI,
				this.shardKeys[0], BloomScripts.header())
			.thenAccept((reply) -> BloomScripts.checkHeader(reply, this.name, this.layout)));
	}

	/**
	 * A native filter is reserved with its sizing if absent ({@code BF.RESERVE}), and its capacity compared
	 * once ({@code BF.INFO}); adds use {@code BF.INSERT} with the sizing, so a filter deleted later is recreated
	 * with it.
	 */
	private CompletionStage<Void> openNative() {
		byte[] key = this.shardKeys[0];
		return once(() -> reserve(BloomSeeding.NO_TOKEN)
			.thenCompose((reserved) -> this.commands.<List<Object>>executeAsync(NativeBloomCommands.INFO,
					ReturnType.MULTI, key))
			.thenAccept((info) -> {
				long capacity = NativeBloomCommands.readInfo(info, "Capacity");
				if (capacity != this.spec.expectedInsertions()) {
					throw new BloomFilterSizingException("Bloom filter '" + this.name + "' is stored in Redis as a"
							+ " native filter of capacity " + capacity + ", but its spec now expects "
							+ this.spec.expectedInsertions() + " insertions. Use the spec it was created with, or delete"
							+ " the filter (BloomFilter.delete()) to start over empty.");
				}
			}));
	}

	/** Reserves the native filter with its sizing if absent (deleting its mark then); with a token, begins a seeding. */
	private CompletionStage<@Nullable Long> reserve(byte[] token) {
		return this.scripts.executeAsync(NativeBloomCommands.RESERVE_SCRIPT, ReturnType.INTEGER, 2,
				NativeBloomCommands.script(this.shardKeys[0], this.markKeys[0], token, NativeBloomCommands.reserve(this.spec)));
	}

	@Override
	public CompletionStage<BloomAnswer> checkAsync(byte[] item) {
		boolean[] complete = new boolean[1];
		return this.calls.observed(BloomOperation.CONTAINS, 1, () -> check(item, complete))
			.thenApply((found) -> BloomAnswer.of(found.get(0), complete[0], this, this.incomplete));
	}

	/** One script on the item's shard: the lookup, and whether that shard is complete. */
	private CompletionStage<List<Boolean>> check(byte[] item, boolean[] complete) {
		List<byte[]> items = List.of(item);
		return useNative().thenCompose((nativeFilter) -> nativeFilter
				? openNative().thenCompose((ignored) -> this.scripts.<List<Object>>executeAsync(
						NativeBloomCommands.CHECK_SCRIPT, ReturnType.MULTI, 2, NativeBloomCommands.script(this.shardKeys[0],
								this.markKeys[0], null, NativeBloomCommands.exists(items))))
					.thenApply((reply) -> NativeBloomCommands.readFlags(completeness(reply, complete), 1))
				: openSharded().thenCompose((ignored) -> perShard(items, (shard, offsets, n) -> this.scripts
					.<List<Object>>executeAsync(BloomScripts.CHECK, ReturnType.MULTI, 2,
							BloomScripts.check(this.shardKeys[shard], this.markKeys[shard], offsets))
					.thenApply((reply) -> BloomScripts.readLookup(completeness(reply, complete), this.name, this.layout,
							n)))));
	}

	/** Takes the check scripts' last element, the completeness flag, off their reply. */
	private static List<Object> completeness(@Nullable List<Object> reply, boolean[] complete) {
		if (reply == null || reply.isEmpty()) {
			throw new IllegalStateException("Unexpected reply from a Bloom filter check: " + reply);
		}
		complete[0] = Long.valueOf(1).equals(reply.get(reply.size() - 1));
		return reply.subList(0, reply.size() - 1);
	}

	@Override
	public boolean seed(Iterable<String> ids) {
		return BloomSeeding.seed(this, ids, new BloomSeeding.Seedable() {

			@Override
			public CompletionStage<?> begin(byte[] token) {
				return useNative().thenCompose((nativeFilter) -> nativeFilter
						? openNative().thenCompose((ignored) -> reserve(token)).thenApply((reserved) -> null)
						: beginShards(token));
			}

			@Override
			public CompletionStage<Boolean> end(byte[] token) {
				return BloomSeeding.end(RedisBloomFilter.this.scripts, RedisBloomFilter.this.shardKeys,
						RedisBloomFilter.this.markKeys, token);
			}

		});
	}

	/** Every shard is created if absent (an empty shard belongs to a complete filter too) and given the token. */
	private CompletionStage<@Nullable Void> beginShards(byte[] token) {
		return openSharded().thenCompose((ignored) -> {
			CompletableFuture<?>[] begun = new CompletableFuture<?>[this.shardKeys.length];
			for (int i = 0; i < begun.length; i++) {
				begun[i] = addByScript(i, new long[0], 0, token).toCompletableFuture();
			}
			return CompletableFuture.allOf(begun);
		});
	}

	@Override
	public boolean isComplete() {
		return Stages.join(BloomSeeding.isComplete(this.scripts, this.shardKeys, this.markKeys));
	}

	private CompletionStage<Void> once(Supplier<CompletionStage<Void>> check) {
		CompletableFuture<Void> current = this.opened.get();
		if (current != null) {
			return current;
		}
		CompletableFuture<Void> mine = new CompletableFuture<>();
		if (!this.opened.compareAndSet(null, mine)) {
			return this.opened.get();
		}
		check.get().whenComplete((done, failure) -> {
			if (failure != null) {
				// Asked again next time: an outage or a mismatch that a delete() may clear.
				this.opened.compareAndSet(mine, null);
				mine.completeExceptionally(failure);
			}
			else {
				mine.complete(null);
			}
		});
		return mine;
	}

	@Override
	public BloomFilterInfo info() {
		boolean nativeFilter = Stages.join(useNative());
		long m = this.layout.bits();
		int k = this.layout.hashes();
		if (nativeFilter) {
			Long exists = this.commands.execute("EXISTS", ReturnType.INTEGER, this.shardKeys[0]);
			long items = 0;
			if (exists != null && exists == 1) {
				items = Math.max(0, NativeBloomCommands.readInfo(
						this.commands.execute(NativeBloomCommands.INFO, ReturnType.MULTI, this.shardKeys[0]),
						"Number of items inserted"));
			}
			double fill = 1 - Math.exp(-(double) k * items / m);
			return new BloomFilterInfo(this.name, BloomMode.NATIVE, m, k, 1, this.spec.expectedInsertions(),
					this.spec.falsePositiveRate(), items, fill, Math.pow(fill, k));
		}
		List<Object> header = this.commands.execute(BloomScripts.LOOKUP, ReturnType.MULTI, this.shardKeys[0],
				BloomScripts.header());
		BloomScripts.checkHeader(header, this.name, this.layout);
		long set = 0;
		for (byte[] key : this.shardKeys) {
			Long count = this.commands.execute(BloomScripts.COUNT, ReturnType.INTEGER, key, BloomScripts.count());
			set += (count != null) ? count : 0;
		}
		double fill = Math.min(1.0, (double) set / m);
		long items = (fill >= 1.0) ? Long.MAX_VALUE : Math.round(-((double) m / k) * Math.log(1 - fill));
		return new BloomFilterInfo(this.name, BloomMode.BITMAP, m, k, this.layout.shards(),
				this.spec.expectedInsertions(), this.spec.falsePositiveRate(), items, fill, Math.pow(fill, k));
	}

	@Override
	public void delete() {
		Stages.join(deleteAsync());
	}

	@Override
	public CompletionStage<@Nullable Void> deleteAsync() {
		// Shards live in different slots on a cluster: one DEL each (with its mark), all in flight at once.
		CompletableFuture<?>[] deletions = new CompletableFuture<?>[this.shardKeys.length];
		for (int i = 0; i < this.shardKeys.length; i++) {
			deletions[i] = this.commands.executeAsync("DEL", ReturnType.INTEGER, this.shardKeys[i], this.markKeys[i])
				.toCompletableFuture();
		}
		return CompletableFuture.allOf(deletions).thenRun(() -> {
			this.opened.set(null);
			for (int i = 0; i < this.shardKeys.length; i++) {
				this.knownShards.set(i, 0);
			}
		});
	}



	@FunctionalInterface
	private interface ShardPart {

		CompletionStage<List<Boolean>> run(long[] offsets, int items);

	}

	@FunctionalInterface
	private interface ShardCall {

		CompletionStage<List<Boolean>> run(int shard, long[] offsets, int items);

	}

}

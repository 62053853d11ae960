package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link BloomFilter} of a spec with a {@link BloomGrowth}: a scalable filter of layers, always in bitmaps.
 * Keys, all in the filter's hash tag: {@code <prefix>bloom:{<name>}}, its record (a hash: the sizing, the number of
 * layers, the items in the newest layer and in all), and {@code <prefix>bloom:{<name>}:layer:<i>} per layer.
 * <p>
 * An add or lookup is one script over every layer. The script needs each item's offsets in each layer it looks at,
 * which the client computes: it sends them for the layers it knows of, and an add also for the next layer when the
 * newest one may fill during the call (the client knows the newest layer's count from the last add's reply: a
 * hint); when the filter has grown further (another instance added), the script says so, and the items it did not
 * handle go again with more layers: one more round trip, once per layer the instance had not seen.
 * <p>
 * A layer lost on its own (evicted, expired, deleted) would read as zeros: a {@link #check(String) check} and
 * {@link #isComplete()} believe the completeness mark only while every layer the record counts exists (one
 * {@code EXISTS} in the script), an add that finds one missing deletes the mark, and a seeding that begins on such a
 * filter deletes it and starts over.
 * <p>
 * Measured (Redis 7.0, {@code INFO commandstats}): each {@code redis.call} in a script costs about as much as the
 * command itself, and each argument about 50 ns, so the scripts read the record once, write it once, and the add
 * learns whether an item was in the newest layer from the {@code BITFIELD} that sets its bits. Asking the layers
 * without a script (a pipelined {@code BITFIELD_RO} per layer) cost less on the server but more than twice as much
 * on the client at seven layers, and was slower end to end.
 */
final class GrowingBloomFilter implements BloomFilter {

	private final String name;

	private final BloomFilterSpec spec;

	private final GrowthLayout layout;

	private final byte[] recordKey;

	private final byte[][] layerKeys;

	// Its completeness mark, in the record's slot (see BloomSeeding).
	private final byte[] markKey;

	private final long ttlMillis;

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final BloomCalls calls;

	// Told of a check that found the filter not complete: the registry seeds it again if it has a seed.
	private final Consumer<BloomFilter> incomplete;

	// The layers this instance has seen: a hint for how many layers' offsets to send, never trusted as the truth.
	private final AtomicInteger knownLayers = new AtomicInteger(1);

	// The items in the newest layer as the last add reported them: a hint for whether an add sends the next layer.
	private final AtomicLong knownCount = new AtomicLong();

	GrowingBloomFilter(String name, BloomFilterSpec spec, BloomGrowth growth, ScriptExecutor scripts,
			CommandExecutor commands, KeyNaming keyNaming, Listeners<BloomFilterListener> listeners,
			Supplier<Observations> observations, Consumer<BloomFilter> incomplete) {
		this.name = name;
		this.spec = spec;
		this.layout = new GrowthLayout(spec, growth);
		this.recordKey = bytes(keyNaming.key("bloom", name));
		this.layerKeys = new byte[growth.maxLayers()][];
		this.markKey = bytes(keyNaming.key("bloom", name, BloomSeeding.MARK));
		for (int i = 0; i < this.layerKeys.length; i++) {
			this.layerKeys[i] = bytes(keyNaming.key("bloom", name, "layer:" + i));
		}
		Duration ttl = spec.ttl();
		this.ttlMillis = (ttl != null) ? Math.max(1, ttl.toMillis()) : 0;
		this.scripts = scripts;
		this.commands = commands;
		this.calls = new BloomCalls(name, listeners, observations, LogFactory.getLog(GrowingBloomFilter.class));
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
		long[][] hashes = hash(items);
		if (hashes.length == 0) {
			return CompletableFuture.completedFuture(List.of());
		}
		return this.calls.observed(BloomOperation.ADD, hashes.length,
				() -> add(hashes, 0, new ArrayList<>(hashes.length)));
	}

	@Override
	public CompletionStage<List<Boolean>> mightContainAllBytesAsync(Collection<byte[]> items) {
		long[][] hashes = hash(items);
		if (hashes.length == 0) {
			return CompletableFuture.completedFuture(List.of());
		}
		return this.calls.observed(BloomOperation.CONTAINS, hashes.length,
				() -> lookUp(hashes, 0, new ArrayList<>(hashes.length), null, null));
	}

	@Override
	public CompletionStage<BloomAnswer> checkAsync(byte[] item) {
		long[][] hashes = hash(List.of(item));
		boolean[] complete = new boolean[1];
		return this.calls.observed(BloomOperation.CONTAINS, 1,
				() -> lookUp(hashes, 0, new ArrayList<>(1), this.markKey, complete))
			.thenApply((found) -> BloomAnswer.of(found.get(0), complete[0], this, this.incomplete));
	}

	@Override
	public boolean seed(Iterable<String> ids) {
		return BloomSeeding.seed(this, ids, new BloomSeeding.Seedable() {

			@Override
			public CompletionStage<?> begin(byte[] token) {
				return beginSeeding(token);
			}

			@Override
			public CompletionStage<Boolean> end(byte[] token) {
				return BloomSeeding.end(GrowingBloomFilter.this.scripts, new byte[][] { GrowingBloomFilter.this.recordKey },
						new byte[][] { GrowingBloomFilter.this.markKey }, token);
			}

		});
	}

	/**
	 * The add script with no items, given every layer's key: creates the record if absent (and deletes layers left
	 * without one), starts the filter over if a layer it counts is missing, and writes the token to the mark.
	 */
	private CompletionStage<?> beginSeeding(byte[] token) {
		int layers = this.layout.maxLayers();
		return this.scripts.<List<Object>>executeAsync(GrowthScripts.ADD, ReturnType.MULTI, 2 + layers,
				GrowthScripts.add(this.recordKey, this.layerKeys, this.markKey, this.layout, layers, this.ttlMillis, token,
						new long[0], 0))
			.thenAccept((raw) -> {
				GrowthScripts.Reply reply = GrowthScripts.readAdd(raw);
				checkSizing(reply);
				// The filter as it is now, perhaps started over: the hints may go down.
				this.knownLayers.set(reply.layers());
				this.knownCount.set(reply.count());
			});
	}

	/**
	 * The lookup script with no items, given every layer's key and the mark: complete when the mark says so and every
	 * layer the record counts is there, as a check finds it.
	 */
	@Override
	public boolean isComplete() {
		int layers = this.layout.maxLayers();
		List<Object> raw = Stages.join(this.scripts.<List<Object>>executeAsync(GrowthScripts.CONTAINS, ReturnType.MULTI,
				2 + layers, GrowthScripts.contains(this.recordKey, this.layerKeys, this.layout, layers, new long[0], 0,
						this.markKey)));
		GrowthScripts.Reply reply = GrowthScripts.readContains(raw);
		checkSizing(reply);
		return reply.status() == GrowthScripts.COMPLETE;
	}

	/**
	 * Adds the items from {@code from} on, at most {@link RedisBloomFilter#ITEMS_PER_CALL} per call, one call after
	 * the other: a call's reply tells how many layers the next one must carry.
	 */
	private CompletionStage<List<Boolean>> add(long[][] hashes, int from, List<Boolean> answers) {
		if (from == hashes.length) {
			return CompletableFuture.completedFuture(answers);
		}
		int items = Math.min(RedisBloomFilter.ITEMS_PER_CALL, hashes.length - from);
		int layers = layersToSend(items);
		long[] offsets = offsets(hashes, from, items, layers);
		byte[][] keysAndArgs = GrowthScripts.add(this.recordKey, this.layerKeys, this.markKey, this.layout, layers,
				this.ttlMillis, BloomSeeding.NO_TOKEN, offsets, items);
		return this.scripts.<List<Object>>executeAsync(GrowthScripts.ADD, ReturnType.MULTI, 2 + layers, keysAndArgs)
			.thenCompose((raw) -> {
				GrowthScripts.Reply reply = GrowthScripts.readAdd(raw);
				checkSizing(reply);
				answers.addAll(reply.flags());
				if (reply.status() == GrowthScripts.FULL) {
					throw new BloomFilterFullException("Bloom filter '" + this.name + "' is full: its "
							+ this.layout.maxLayers() + " layers hold " + this.layout.totalCapacity(this.layout.maxLayers())
							+ " items, as many as keep its false-positive rate at " + this.spec.falsePositiveRate() + "; "
							+ reply.flags().size() + " of the batch's items before the refused one were handled. Delete"
							+ " it and rebuild it with more layers (growth.maxLayers) or a larger sizing");
				}
				learn(reply, layers);
				return add(hashes, from + reply.flags().size(), answers);
			});
	}

	/** With a mark, also tells whether the filter is complete ({@code complete[0]}, from the last call). */
	private CompletionStage<List<Boolean>> lookUp(long[][] hashes, int from, List<Boolean> answers,
			byte @Nullable [] mark, boolean @Nullable [] complete) {
		if (from == hashes.length) {
			return CompletableFuture.completedFuture(answers);
		}
		int items = Math.min(RedisBloomFilter.ITEMS_PER_CALL, hashes.length - from);
		int layers = this.knownLayers.get();
		long[] offsets = offsets(hashes, from, items, layers);
		byte[][] keysAndArgs = GrowthScripts.contains(this.recordKey, this.layerKeys, this.layout, layers, offsets, items,
				mark);
		return this.scripts.<List<Object>>executeAsync(GrowthScripts.CONTAINS, ReturnType.MULTI,
				1 + layers + ((mark != null) ? 1 : 0), keysAndArgs)
			.thenCompose((raw) -> {
				GrowthScripts.Reply reply = GrowthScripts.readContains(raw);
				checkSizing(reply);
				answers.addAll(reply.flags());
				if (reply.status() == GrowthScripts.NEEDS_LAYERS) {
					learn(reply, layers);
				}
				if (complete != null) {
					complete[0] = reply.status() == GrowthScripts.COMPLETE;
				}
				return lookUp(hashes, from + reply.flags().size(), answers, mark, complete);
			});
	}

	/**
	 * The layers an add of {@code items} sends offsets for: those known, and the next one unless the newest known
	 * layer has room for them all by the last count seen. A wrong guess costs a round trip, never an answer: the
	 * script refuses an item that needs a layer it was not sent ({@link GrowthScripts#NEEDS_LAYERS}), and its reply,
	 * a full layer's count, makes the next call send it.
	 */
	int layersToSend(int items) {
		int known = this.knownLayers.get();
		boolean room = this.knownCount.get() + items < this.layout.capacity(known - 1);
		return Math.min(this.layout.maxLayers(), room ? known : known + 1);
	}

	/** Remembers the layers a reply reports; a reply asking for more layers must report more than were sent. */
	private void learn(GrowthScripts.Reply reply, int sent) {
		this.knownLayers.accumulateAndGet(Math.min(reply.layers(), this.layout.maxLayers()), Math::max);
		if (reply.count() >= 0) {
			this.knownCount.set(reply.count());
		}
		if (reply.status() == GrowthScripts.NEEDS_LAYERS && reply.flags().isEmpty() && reply.layers() < sent) {
			throw new IllegalStateException("Bloom filter '" + this.name + "' asked for more layers than the "
					+ reply.layers() + " it has");
		}
	}

	private void checkSizing(GrowthScripts.Reply reply) {
		if (reply.status() == GrowthScripts.OTHER_SIZING) {
			throw new BloomFilterSizingException("Bloom filter '" + this.name + "' is stored in Redis as a growing filter"
					+ " with sizing '" + reply.storedSizing() + "', but its spec now needs '" + this.layout.sizing()
					+ "': its bits mean nothing under other sizing. Use the spec it was created with, or delete the"
					+ " filter (BloomFilter.delete()) to start over empty.");
		}
	}

	private long[] offsets(long[][] hashes, int from, int items, int layers) {
		int perItem = this.layout.offsetsPerItem(layers);
		long[] offsets = new long[items * perItem];
		for (int i = 0; i < items; i++) {
			this.layout.offsets(hashes[from + i], layers, offsets, i * perItem);
		}
		return offsets;
	}

	private static long[][] hash(Collection<byte[]> items) {
		List<byte[]> list = List.copyOf(items);
		long[][] hashes = new long[list.size()][];
		for (int i = 0; i < hashes.length; i++) {
			hashes[i] = BloomHashing.hash128(list.get(i));
		}
		return hashes;
	}

	@Override
	public BloomFilterInfo info() {
		List<Object> record = this.commands.execute(GrowthScripts.READ_RECORD, ReturnType.MULTI, this.recordKey,
				GrowthScripts.record());
		int layers = 1;
		long count = 0;
		long items = 0;
		if (record != null && record.size() == 4 && record.get(0) != null) {
			String stored = GrowthScripts.string(record.get(0));
			checkSizing(new GrowthScripts.Reply(stored.equals(this.layout.sizing()) ? GrowthScripts.DONE
					: GrowthScripts.OTHER_SIZING, 0, -1, List.of(), stored));
			layers = Integer.parseInt(GrowthScripts.string(record.get(1)));
			count = Long.parseLong(GrowthScripts.string(record.get(2)));
			items = Long.parseLong(GrowthScripts.string(record.get(3)));
		}
		List<BloomLayerInfo> infos = new ArrayList<>(layers);
		double clear = 1;
		for (int i = 0; i < layers; i++) {
			Long set = this.commands.execute(GrowthScripts.COUNT, ReturnType.INTEGER, this.layerKeys[i]);
			double fill = Math.min(1.0, (double) ((set != null) ? set : 0) / this.layout.bits(i));
			clear *= 1 - Math.pow(fill, this.layout.hashes(i));
			long layerItems = (i < layers - 1) ? this.layout.capacity(i) : count;
			infos.add(new BloomLayerInfo(i, this.layout.capacity(i), layerItems, this.layout.bits(i),
					this.layout.hashes(i), this.layout.rate(i), fill));
		}
		BloomLayerInfo newest = infos.get(infos.size() - 1);
		long bits = infos.stream().mapToLong(BloomLayerInfo::bits).sum();
		return new BloomFilterInfo(this.name, BloomMode.BITMAP, bits, newest.hashes(), layers,
				this.spec.expectedInsertions(), this.spec.falsePositiveRate(), items, newest.fillRatio(), 1 - clear, infos);
	}

	@Override
	public void delete() {
		Stages.join(deleteAsync());
	}

	@Override
	public CompletionStage<@Nullable Void> deleteAsync() {
		// Every layer and the mark share the record's slot: one DEL of them all.
		byte[][] others = Arrays.copyOf(this.layerKeys, this.layerKeys.length + 1);
		others[this.layerKeys.length] = this.markKey;
		return this.commands.<Long>executeAsync("DEL", ReturnType.INTEGER, this.recordKey, others)
			.thenApply((deleted) -> {
				this.knownLayers.set(1);
				this.knownCount.set(0);
				return null;
			});
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

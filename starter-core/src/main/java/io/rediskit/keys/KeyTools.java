package io.rediskit.keys;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.observation.Observation;
import io.rediskit.keys.KeyNodes.Node;
import io.rediskit.support.Listeners;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Key-space tools an operator can trust on production: nothing here sends {@code KEYS}, {@code DEL} of a big
 * key or any other command whose run time grows with the data.
 * <ul>
 * <li>{@link #scan(KeyScanOptions)}: {@code SCAN} on every master (on a cluster, each master's own connection,
 * in parallel), duplicates removed, paced, resumable.</li>
 * <li>{@link #bigKeys(BigKeyOptions)}: the largest keys by memory and by elements per type, with totals.</li>
 * <li>{@link #deleteKey(String, DeleteOptions)}: a big collection emptied in batches ({@code HSCAN}+{@code HDEL},
 * {@code SSCAN}+{@code SREM}, {@code ZREMRANGEBYRANK}, {@code LTRIM}), then {@code UNLINK}.</li>
 * <li>{@link #deleteByPattern(KeyScanOptions, DeleteOptions)}: the scan, then {@code UNLINK} in batches of one
 * hash slot each; a dry run lists what would go.</li>
 * <li>{@link #lazyfreeWarnings()}: the server settings that make an expiry or eviction of a big key block.</li>
 * </ul>
 * Works on a {@link LettuceConnectionFactory} that shares its native connection (the default), standalone,
 * Sentinel or Cluster. Keys are decoded and encoded as UTF-8: a key that is not valid UTF-8 is reported with
 * replacement characters and cannot be deleted through these tools. The methods block the calling thread for
 * as long as the work and its pacing take (minutes on a big key space): run them on a thread of your own, not
 * on a request thread; interrupting that thread stops them between batches. Failures are Spring's
 * {@code DataAccessException}s.
 * <p>
 * Each call is one {@link RedisKitObservation#KEYS_OPERATION} of the whole call, however long it runs (a
 * {@link KeyScan}'s each batch it fetches: the caller decides when, or whether, it goes on), named
 * {@value #OBSERVED_NAME} and tagged with the operation ({@code scan}, {@code big-keys}, {@code delete-key},
 * {@code delete-pattern}, {@code lazyfree}) and the outcome ({@code success}, {@code interrupted}, {@code error});
 * never with a pattern or a key.
 * What the calls find and remove (the report, the keys and elements deleted) is told to the
 * {@link KeyToolsListener}s.
 */
public class KeyTools {

	private static final Log logger = LogFactory.getLog(KeyTools.class);

	private static final List<String> COLLECTION_TYPES = List.of("hash", "set", "zset", "list");

	/** Keys of a big-key report whose commands are sent together; at most two such chunks are in flight. */
	static final int REPORT_CHUNK = 100;

	/** The name tag of the tools' observations: they have no configured name, and a pattern is never a tag. */
	public static final String OBSERVED_NAME = "keys";

	/** The outcome of a call whose thread was interrupted between batches. */
	static final String INTERRUPTED = "interrupted";

	private final KeyNodes nodes;

	private final Listeners<KeyToolsListener> listeners;

	private final AtomicBoolean lazyfreeChecked = new AtomicBoolean();

	private volatile Observations observations = Observations.NOOP;

	/**
	 * @param connectionFactory the application's Lettuce connection factory
	 * @param listeners told of progress, in order
	 */
	public KeyTools(LettuceConnectionFactory connectionFactory, List<? extends KeyToolsListener> listeners) {
		this.nodes = new KeyNodes(Objects.requireNonNull(connectionFactory, "connectionFactory must not be null"));
		this.listeners = Listeners.of("key tools", listeners);
	}

	/**
	 * Observes every call as {@link RedisKitObservation#KEYS_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	/**
	 * Starts a scan; it sends nothing until its first batch is asked for. Close a scan not read to its end (or
	 * its {@link KeyScan#stream() stream}) to end its observation.
	 * @param options what to scan and how fast
	 * @return the scan
	 */
	public KeyScan scan(KeyScanOptions options) {
		return new KeyScan(this.nodes, Objects.requireNonNull(options, "options must not be null"), null,
				this.observations);
	}

	/**
	 * Resumes a scan from its {@link KeyScan#cursor()}.
	 * @param options the options of the scan resumed (the pattern and type must be the same for SCAN's guarantee)
	 * @param cursor the cursor
	 * @return the scan
	 * @throws IllegalArgumentException if the cursor is not one
	 */
	public KeyScan scan(KeyScanOptions options, String cursor) {
		return new KeyScan(this.nodes, Objects.requireNonNull(options, "options must not be null"),
				Objects.requireNonNull(cursor, "cursor must not be null"), this.observations);
	}

	/**
	 * Makes a call of the tools as one observation, in scope on the calling thread while the call runs (so that the
	 * driver's command spans sent from it are its children), ended with its outcome.
	 */
	private <T> T observed(String operation, Supplier<T> call) {
		Observation observation = this.observations.start(RedisKitObservation.KEYS_OPERATION, OBSERVED_NAME,
				operation);
		T result;
		try (Observation.Scope scope = observation.openScope()) {
			result = call.get();
		}
		catch (RuntimeException | Error ex) {
			Observations.stop(observation, failureOutcome(ex), ex);
			throw ex;
		}
		Observations.stop(observation, ObservedCalls.SUCCESS);
		return result;
	}

	/** {@value #INTERRUPTED} for a call stopped by its thread's interrupt, else {@code error}. */
	static String failureOutcome(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException) {
				return INTERRUPTED;
			}
		}
		return ObservedCalls.ERROR;
	}

	/**
	 * Reads type, memory, element count, TTL and encoding of every scanned key (five pipelined commands per key,
	 * none of whose cost grows with a key's size except {@code MEMORY USAGE} with {@code samples} 0), with at most
	 * {@code 2 x }{@value #REPORT_CHUNK} keys' commands in flight, so that even unpaced it never queues more than
	 * about a thousand commands ahead of other clients' (a page's worth, 5,000 at the default batch, before).
	 * @param options what to look at
	 * @return the report
	 */
	public BigKeyReport bigKeys(BigKeyOptions options) {
		Objects.requireNonNull(options, "options must not be null");
		return observed("big-keys", () -> report(options));
	}

	private BigKeyReport report(BigKeyOptions options) {
		long start = System.nanoTime();
		KeyScan scan = new KeyScan(this.nodes, options.scan(), null, Observations.NOOP);
		Comparator<KeyInfo> byMemory = Comparator.comparingLong(KeyInfo::memoryBytes);
		Comparator<KeyInfo> byElements = Comparator.comparingLong(KeyInfo::elements);
		PriorityQueue<KeyInfo> largest = new PriorityQueue<>(byMemory);
		Map<String, PriorityQueue<KeyInfo>> largestPerType = new TreeMap<>();
		Map<String, KeyTotals> byType = new TreeMap<>();
		Map<String, KeyTotals> byPrefix = new TreeMap<>();
		long scanned = 0;
		try {
			while (!scan.isDone()) {
				for (KeyInfo info : describe(scan.nextRawBatch(), options.samples())) {
					scanned++;
					keepTop(largest, info, options.top());
					keepTop(largestPerType.computeIfAbsent(info.type(), (type) -> new PriorityQueue<>(byElements)), info,
							options.top());
					byType.merge(info.type(), new KeyTotals(0, 0, 0).plus(info), (a, b) -> a.plus(info));
					byPrefix.merge(prefix(info.key(), options.prefixDelimiter()), new KeyTotals(0, 0, 0).plus(info),
							(a, b) -> a.plus(info));
				}
			}
		}
		catch (RuntimeException ex) {
			throw KeyNodes.translate(ex);
		}
		Map<String, List<KeyInfo>> topPerType = new TreeMap<>();
		largestPerType.forEach((type, queue) -> topPerType.put(type, descending(queue, byElements)));
		BigKeyReport report = new BigKeyReport(scanned, descending(largest, byMemory), topPerType, byType, byPrefix,
				Duration.ofNanos(System.nanoTime() - start));
		this.listeners.notify((listener) -> listener.onBigKeyReport(report));
		return report;
	}

	/**
	 * The figures of a batch of keys, {@value #REPORT_CHUNK} keys at a time with at most two chunks in flight:
	 * {@code TYPE}, {@code MEMORY USAGE}, {@code PTTL} and {@code OBJECT ENCODING} of each key pipelined, and its
	 * length command sent by the driver's thread the moment its {@code TYPE} reply arrives. Bounded so that a
	 * report never queues thousands of commands ahead of other clients' (a page's commands sent in one burst held
	 * another client's p99 at 22 ms), and pipelined so that it takes no longer than that burst did.
	 */
	private List<KeyInfo> describe(List<byte[]> keys, int samples) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.nodes.routing();
		int n = keys.size();
		List<KeyReads> reads = new ArrayList<>(n);
		List<KeyInfo> infos = new ArrayList<>(n);
		int collected = 0;
		for (int i = 0; i < n; i++) {
			if (i - collected >= 2 * REPORT_CHUNK) {
				// Two chunks in flight: collect the older before sending more.
				for (int end = collected + REPORT_CHUNK; collected < end; collected++) {
					collect(reads.get(collected), infos);
				}
			}
			reads.add(send(commands, keys.get(i), samples));
		}
		for (; collected < n; collected++) {
			collect(reads.get(collected), infos);
		}
		return infos;
	}

	private KeyReads send(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key, int samples) {
		RedisFuture<String> type = commands.type(key);
		RedisFuture<Long> memory = commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(ByteArrayCodec.INSTANCE),
				new CommandArgs<>(ByteArrayCodec.INSTANCE).add("USAGE").addKey(key).add("SAMPLES").add(samples));
		RedisFuture<Long> ttl = commands.pttl(key);
		RedisFuture<String> encoding = commands.objectEncoding(key);
		CompletableFuture<@Nullable Long> elements = type.toCompletableFuture()
			.thenCompose((kind) -> length(commands, key, kind));
		return new KeyReads(key, type, memory, ttl, encoding, elements);
	}

	private static CompletionStage<@Nullable Long> length(RedisClusterAsyncCommands<byte[], byte[]> commands,
			byte[] key, String type) {
		return switch (type) {
			case "hash" -> commands.hlen(key);
			case "set" -> commands.scard(key);
			case "zset" -> commands.zcard(key);
			case "list" -> commands.llen(key);
			case "string" -> commands.strlen(key);
			case "stream" -> commands.xlen(key);
			default -> CompletableFuture.completedFuture(null);
		};
	}

	private void collect(KeyReads reads, List<KeyInfo> infos) {
		String type = this.nodes.await(reads.type());
		Long bytes = awaitOrNull(reads.memory());
		Long ttl = awaitOrNull(reads.ttl());
		String encoding = awaitOrNull(reads.encoding());
		Long elements = awaitOrNull(reads.elements());
		if ("none".equals(type) || bytes == null) {
			// Gone between the scan and the read.
			return;
		}
		infos.add(new KeyInfo(new String(reads.key(), StandardCharsets.UTF_8), type, bytes,
				(elements != null) ? elements : 0, (ttl != null && ttl >= 0) ? ttl : -1,
				(encoding != null) ? encoding : "unknown"));
	}

	/** One key's replies, pending. */
	private record KeyReads(byte[] key, RedisFuture<String> type, RedisFuture<Long> memory, RedisFuture<Long> ttl,
			RedisFuture<String> encoding, CompletableFuture<@Nullable Long> elements) {
	}

	private <T> @Nullable T awaitOrNull(RedisFuture<T> future) {
		return awaitOrNull(future.toCompletableFuture());
	}

	private <T> @Nullable T awaitOrNull(CompletableFuture<T> future) {
		try {
			return this.nodes.await(future);
		}
		catch (RuntimeException ex) {
			// A key that vanished between the commands of its batch answers errors or nil; skip it.
			if (io.rediskit.support.RedisFailures.isUnavailable(ex)) {
				throw ex;
			}
			return null;
		}
	}

	private static void keepTop(PriorityQueue<KeyInfo> queue, KeyInfo info, int top) {
		queue.add(info);
		if (queue.size() > top) {
			queue.poll();
		}
	}

	private static List<KeyInfo> descending(PriorityQueue<KeyInfo> queue, Comparator<KeyInfo> order) {
		List<KeyInfo> list = new ArrayList<>(queue);
		list.sort(order.reversed().thenComparing(KeyInfo::key));
		return List.copyOf(list);
	}

	private static String prefix(String key, char delimiter) {
		int end = key.indexOf(delimiter);
		return (end >= 0) ? key.substring(0, end + 1) : key;
	}

	/**
	 * Deletes one key without blocking the server: a hash, set, sorted set or list is emptied in batches (with
	 * the pause between them), then unlinked; any other type is unlinked at once ({@code UNLINK} frees it in
	 * the background). Elements added while it runs are removed too, for up to three passes; then the key is
	 * unlinked as it is.
	 * @param key the key
	 * @param options batch size and pause; a dry run reports the key and its element count
	 * @return what was deleted
	 */
	public DeletionReport deleteKey(String key, DeleteOptions options) {
		Objects.requireNonNull(key, "key must not be null");
		Objects.requireNonNull(options, "options must not be null");
		return observed("delete-key", () -> delete(key, options));
	}

	private DeletionReport delete(String key, DeleteOptions options) {
		warnLazyfreeOnce();
		long start = System.nanoTime();
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.nodes.routing();
		byte[] raw = key.getBytes(StandardCharsets.UTF_8);
		try {
			String type = this.nodes.await(commands.type(raw));
			if ("none".equals(type)) {
				return new DeletionReport(options.dryRun(), 0, 0, List.of(), elapsed(start));
			}
			if (options.dryRun()) {
				return new DeletionReport(true, 1, 0, (options.listLimit() > 0) ? List.of(key) : List.of(), elapsed(start));
			}
			long elements = 0;
			for (int pass = 0; pass < 3 && COLLECTION_TYPES.contains(type); pass++) {
				long removed = empty(commands, raw, type, options, start);
				elements += removed;
				if (removed == 0) {
					break;
				}
			}
			// An emptied collection is gone already (Redis deletes empty collections): it counts as deleted.
			long unlinked = this.nodes.await(commands.unlink(raw));
			long keys = (unlinked > 0 || elements > 0) ? 1 : 0;
			long total = elements;
			this.listeners.notify((listener) -> listener.onDeleted("delete-key", keys, 0));
			this.listeners.notify((listener) -> listener.onDeleteProgress("delete-key", keys, total, elapsed(start)));
			return new DeletionReport(false, keys, elements, List.of(), elapsed(start));
		}
		catch (RuntimeException ex) {
			throw KeyNodes.translate(ex);
		}
	}

	/** One pass over a collection, in batches; returns the elements removed. */
	private long empty(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key, String type,
			DeleteOptions options, long start) {
		int batch = options.batchSize();
		ScanArgs limit = ScanArgs.Builder.limit(batch);
		long removed = 0;
		ScanCursor cursor = ScanCursor.INITIAL;
		while (true) {
			long step;
			boolean done;
			switch (type) {
				case "hash" -> {
					MapScanCursor<byte[], byte[]> page = this.nodes.await(commands.hscan(key, cursor, limit));
					step = page.getMap().isEmpty() ? 0
							: this.nodes.await(commands.hdel(key, page.getMap().keySet().toArray(byte[][]::new)));
					cursor = page;
					done = page.isFinished();
				}
				case "set" -> {
					ValueScanCursor<byte[]> page = this.nodes.await(commands.sscan(key, cursor, limit));
					step = page.getValues().isEmpty() ? 0
							: this.nodes.await(commands.srem(key, page.getValues().toArray(byte[][]::new)));
					cursor = page;
					done = page.isFinished();
				}
				case "zset" -> {
					step = this.nodes.await(commands.zremrangebyrank(key, 0, batch - 1));
					done = step == 0;
				}
				case "list" -> {
					long length = this.nodes.await(commands.llen(key));
					if (length > 0) {
						this.nodes.await(commands.ltrim(key, batch, -1));
					}
					step = Math.min(length, batch);
					done = length <= batch;
				}
				default -> throw new IllegalStateException("Not a collection type: " + type);
			}
			removed += step;
			long soFar = removed;
			long stepped = step;
			this.listeners.notify((listener) -> listener.onDeleted("delete-key", 0, stepped));
			this.listeners.notify((listener) -> listener.onDeleteProgress("delete-key", 0, soFar, elapsed(start)));
			if (done) {
				return removed;
			}
			pause(options.pause());
		}
	}

	/**
	 * Deletes every key a scan finds, with {@code UNLINK} in batches whose keys share a hash slot (so a cluster
	 * runs each on one master), pausing between batches. A dry run only counts and lists.
	 * @param scan which keys, and the scan's pace
	 * @param options batch size, pause, dry run
	 * @return what was deleted
	 */
	public DeletionReport deleteByPattern(KeyScanOptions scan, DeleteOptions options) {
		Objects.requireNonNull(scan, "scan must not be null");
		Objects.requireNonNull(options, "options must not be null");
		return observed("delete-pattern", () -> deleteMatching(scan, options));
	}

	private DeletionReport deleteMatching(KeyScanOptions scan, DeleteOptions options) {
		if (!options.dryRun()) {
			warnLazyfreeOnce();
		}
		long start = System.nanoTime();
		KeyScan keys = new KeyScan(this.nodes, scan, null, Observations.NOOP);
		List<String> listed = new ArrayList<>();
		long count = 0;
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = this.nodes.routing();
			while (!keys.isDone()) {
				List<byte[]> batch = keys.nextRawBatch();
				if (options.dryRun()) {
					count += batch.size();
					for (byte[] key : batch) {
						if (listed.size() < options.listLimit()) {
							listed.add(new String(key, StandardCharsets.UTF_8));
						}
					}
					continue;
				}
				Map<Integer, List<byte[]>> bySlot = new LinkedHashMap<>();
				for (byte[] raw : batch) {
					bySlot.computeIfAbsent(SlotHash.getSlot(raw), (slot) -> new ArrayList<>()).add(raw);
				}
				List<RedisFuture<Long>> unlinks = new ArrayList<>();
				for (List<byte[]> slotKeys : bySlot.values()) {
					for (int from = 0; from < slotKeys.size(); from += options.batchSize()) {
						unlinks.add(commands.unlink(slotKeys.subList(from, Math.min(slotKeys.size(), from + options.batchSize()))
							.toArray(byte[][]::new)));
					}
				}
				long unlinked = 0;
				for (RedisFuture<Long> unlink : unlinks) {
					unlinked += this.nodes.await(unlink);
				}
				count += unlinked;
				long soFar = count;
				long batchKeys = unlinked;
				this.listeners.notify((listener) -> listener.onDeleted("delete-pattern", batchKeys, 0));
				this.listeners.notify((listener) -> listener.onDeleteProgress("delete-pattern", soFar, 0, elapsed(start)));
				if (!batch.isEmpty()) {
					pause(options.pause());
				}
			}
		}
		catch (RuntimeException ex) {
			throw KeyNodes.translate(ex);
		}
		return new DeletionReport(options.dryRun(), count, 0, List.copyOf(listed), elapsed(start));
	}

	/**
	 * Reads {@code lazyfree-lazy-*} on every master and says which settings make the server free a big key in
	 * its main thread (blocking every client meanwhile): an expiry with {@code lazyfree-lazy-expire no}, an
	 * eviction with {@code lazyfree-lazy-eviction no}, a plain {@code DEL} with {@code lazyfree-lazy-user-del no}.
	 * @return one line per finding, empty when none; a master whose configuration cannot be read (CONFIG
	 * disabled or denied) gets a line saying so
	 */
	public List<String> lazyfreeWarnings() {
		return observed("lazyfree", this::readLazyfree);
	}

	private List<String> readLazyfree() {
		List<String> warnings = new ArrayList<>();
		for (Node node : this.nodes.masters()) {
			String where = KeyNodes.STANDALONE.equals(node.id()) ? "Redis" : "Master " + node.id();
			Map<String, String> config;
			try {
				config = this.nodes.await(node.commands().configGet("lazyfree-lazy-*"));
			}
			catch (RuntimeException ex) {
				warnings.add(where + ": cannot read lazyfree-lazy-* (" + ex.getMessage()
						+ "); check that an expiring big key does not block");
				continue;
			}
			if ("no".equals(config.get("lazyfree-lazy-expire"))) {
				warnings.add(where + ": lazyfree-lazy-expire is no, so a big key that expires is freed in the main "
						+ "thread and blocks the server; set it to yes, or delete big keys with deleteKey");
			}
			if ("no".equals(config.get("lazyfree-lazy-eviction"))) {
				warnings.add(where + ": lazyfree-lazy-eviction is no, so evicting a big key blocks the server");
			}
			if ("no".equals(config.get("lazyfree-lazy-user-del"))) {
				warnings.add(where + ": lazyfree-lazy-user-del is no, so a plain DEL of a big key blocks the server "
						+ "(these tools use UNLINK)");
			}
		}
		return warnings;
	}

	private void warnLazyfreeOnce() {
		if (this.lazyfreeChecked.compareAndSet(false, true)) {
			try {
				// Part of the deletion's observation, not one of its own.
				readLazyfree().forEach(logger::warn);
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot check lazyfree settings", ex);
			}
		}
	}

	private static void pause(Duration pause) {
		if (pause.isZero()) {
			return;
		}
		try {
			TimeUnit.NANOSECONDS.sleep(pause.toNanos());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Deletion interrupted between batches", ex);
		}
	}

	private static Duration elapsed(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

}

package io.rediskit.keys;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanCursor;
import io.micrometer.observation.Observation;
import io.rediskit.keys.KeyNodes.Node;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import org.jspecify.annotations.Nullable;

/**
 * One scan of the key space: {@code SCAN} on every master, a round at a time (the masters of a cluster in
 * parallel), keys decoded as UTF-8 when they are handed out. Not thread-safe; get one from
 * {@link KeyTools#scan(KeyScanOptions)}.
 * <p>
 * Guarantees, those of {@code SCAN}: every key that exists from the start to the end of the scan and matches is
 * returned; a key added or removed meanwhile may or may not be. With {@link KeyScanOptions#dedupe()} a key is
 * returned once (SCAN can return one twice while a node's table shrinks, and a key can show on two nodes while
 * its slot migrates); the scan then remembers every key it returned, compactly (its bytes and 16 to 32 bytes of
 * table, in a few large arrays rather than an object per key), and drops a key only when its bytes equal those
 * of a key it returned.
 * <p>
 * An unpaced scan (no {@link KeyScanOptions#keysPerSecond()}, no {@link KeyScanOptions#pause()}) reads ahead: each
 * master's next {@code SCAN} is sent by the driver's own thread the moment the previous reply arrives, up to
 * {@value #READ_AHEAD} pages beyond the one being returned, so the server scans on while this process
 * deduplicates and hands out keys, and no thread switch stands between two {@code SCAN}s of a master.
 * <p>
 * Resuming: {@link #cursor()} is the position after the last batch returned by {@link #nextBatch()};
 * {@link KeyTools#scan(KeyScanOptions, String)} continues from it, in this process or another (without the
 * memory of returned keys, so a key can come again). A cluster cursor names nodes: after a failover the new
 * master's scan starts over.
 * <p>
 * Observed: each batch fetched (one round of {@code SCAN} on every master not finished) is one
 * {@link RedisKitObservation#KEYS_OPERATION} (operation {@code scan}), ending {@code success}, {@code error}, or
 * {@code interrupted} when the thread was interrupted during the pacing, and in scope while that batch is fetched.
 * Nothing is open between batches, so a scan read part of the way, dropped, or resumed later from its
 * {@link #cursor()} (in another request, another process) leaves no observation, long task timer or span behind.
 */
public final class KeyScan implements Iterator<String>, AutoCloseable {

	/** Pages an unpaced scan has requested beyond the one it returns, per master. */
	static final int READ_AHEAD = 3;

	private final KeyNodes nodes;

	private final KeyScanOptions options;

	private final KeyScanArgs args;

	private final Map<String, String> cursors;

	private final @Nullable SeenKeys seen;

	/** The batch the iterator serves from, and the index of its next key: decoded one at a time as served. */
	private List<byte[]> buffer = List.of();

	private int next;

	/** Per master, the pages requested beyond the one returned, oldest first (unpaced scans only). */
	private final Map<String, ArrayDeque<CompletableFuture<KeyScanCursor<byte[]>>>> ahead = new HashMap<>();

	private final boolean readAhead;

	private final long startNanos = System.nanoTime();

	private long returned;

	private long rounds;

	private final Observations observations;

	KeyScan(KeyNodes nodes, KeyScanOptions options, @Nullable String cursor, Observations observations) {
		this.nodes = nodes;
		this.observations = observations;
		this.options = options;
		this.args = new KeyScanArgs();
		this.args.match(options.pattern().getBytes(StandardCharsets.UTF_8));
		this.args.limit(options.batchSize());
		if (options.type() != null) {
			this.args.type(options.type());
		}
		this.cursors = (cursor != null) ? parse(cursor) : fresh(nodes);
		this.seen = options.dedupe() ? new SeenKeys() : null;
		// A paced scan waits between rounds on purpose; an unpaced one lets each master scan on while this
		// process deduplicates and hands out the pages before.
		this.readAhead = options.keysPerSecond() == 0 && options.pause().isZero();
	}

	private static Map<String, String> fresh(KeyNodes nodes) {
		Map<String, String> cursors = new LinkedHashMap<>();
		for (Node node : nodes.masters()) {
			cursors.put(node.id(), "0");
		}
		return cursors;
	}

	private static Map<String, String> parse(String cursor) {
		Map<String, String> cursors = new LinkedHashMap<>();
		if (!cursor.startsWith("v1;")) {
			throw new IllegalArgumentException("Not a key scan cursor: '" + cursor + "'");
		}
		for (String part : cursor.substring(3).split(";")) {
			if (part.isEmpty()) {
				continue;
			}
			int equals = part.indexOf('=');
			if (equals < 1 || !part.substring(equals + 1).matches("[0-9]+")) {
				throw new IllegalArgumentException("Not a key scan cursor: '" + cursor + "'");
			}
			cursors.put(part.substring(0, equals), part.substring(equals + 1));
		}
		return cursors;
	}

	/**
	 * The next batch: one round of {@code SCAN} on every master not finished, deduplicated; may be empty while
	 * the scan is not done (a round can match nothing).
	 * @return the keys
	 */
	public List<String> nextBatch() {
		List<byte[]> keys = nextRawBatch();
		List<String> batch = new ArrayList<>(keys.size());
		for (byte[] key : keys) {
			batch.add(decode(key));
		}
		return batch;
	}

	/** {@link #nextBatch()} undecoded, for the tools that send the keys back to Redis. */
	List<byte[]> nextRawBatch() {
		if (this.next < this.buffer.size()) {
			List<byte[]> rest = this.buffer.subList(this.next, this.buffer.size());
			this.buffer = List.of();
			this.next = 0;
			return rest;
		}
		return fetch();
	}

	/** @return whether every master has been scanned to its end */
	public boolean isDone() {
		return this.cursors.isEmpty() && this.next >= this.buffer.size();
	}

	/**
	 * @return where {@link KeyTools#scan(KeyScanOptions, String)} resumes: after the last batch fetched
	 */
	public String cursor() {
		StringBuilder cursor = new StringBuilder("v1;");
		this.cursors.forEach((node, position) -> cursor.append(node).append('=').append(position).append(';'));
		return cursor.toString();
	}

	/** @return how many keys were returned so far */
	public long returned() {
		return this.returned;
	}

	@Override
	public boolean hasNext() {
		while (this.next >= this.buffer.size() && !this.cursors.isEmpty()) {
			this.buffer = fetch();
			this.next = 0;
		}
		return this.next < this.buffer.size();
	}

	@Override
	public String next() {
		if (!hasNext()) {
			throw new NoSuchElementException();
		}
		return decode(this.buffer.get(this.next++));
	}

	/** @return the remaining keys as a sequential stream, fetched lazily */
	public Stream<String> stream() {
		return StreamSupport
			.stream(Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED | Spliterator.NONNULL), false)
			.onClose(this::close);
	}

	/**
	 * Drops the pages read ahead (an unpaced scan's {@code SCAN}s sent beyond the batch returned); does nothing on a
	 * scan that ended. {@link #cursor()} still tells where to resume, and a batch asked for after closing continues
	 * the scan. Closing its {@link #stream()} closes it.
	 */
	@Override
	public void close() {
		this.ahead.clear();
	}

	private List<byte[]> fetch() {
		if (this.cursors.isEmpty()) {
			return List.of();
		}
		Observation observation = this.observations.start(RedisKitObservation.KEYS_OPERATION, KeyTools.OBSERVED_NAME,
				"scan");
		List<byte[]> batch;
		try (Observation.Scope scope = observation.openScope()) {
			batch = round();
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, KeyTools.failureOutcome(ex), ex);
			throw ex;
		}
		Observations.stop(observation, ObservedCalls.SUCCESS, null);
		return batch;
	}

	/** One round of {@code SCAN} on every master not finished, deduplicated and paced. */
	private List<byte[]> round() {
		Map<String, CompletableFuture<KeyScanCursor<byte[]>>> replies = new LinkedHashMap<>();
		Map<String, Node> masters = new HashMap<>();
		for (Node node : this.nodes.masters()) {
			masters.put(node.id(), node);
		}
		try {
			// One SCAN per master, all sent before any reply is awaited: the masters work in parallel.
			for (Map.Entry<String, String> entry : this.cursors.entrySet()) {
				Node node = masters.get(entry.getKey());
				if (node == null) {
					// The node left (a failover): its keys are now served by a master scanned under its own id.
					this.ahead.remove(entry.getKey());
					continue;
				}
				replies.put(entry.getKey(), page(node, entry.getValue()));
			}
			this.cursors.keySet().retainAll(replies.keySet());
			List<byte[]> batch = null;
			for (Map.Entry<String, CompletableFuture<KeyScanCursor<byte[]>>> reply : replies.entrySet()) {
				KeyScanCursor<byte[]> page = this.nodes.await(reply.getValue());
				if (page.isFinished()) {
					this.cursors.remove(reply.getKey());
					this.ahead.remove(reply.getKey());
				}
				else {
					this.cursors.put(reply.getKey(), page.getCursor());
				}
				List<byte[]> keys = (this.seen != null) ? this.seen.retainNew(page.getKeys()) : page.getKeys();
				if (batch == null) {
					batch = keys;
				}
				else {
					batch = new ArrayList<>(batch);
					batch.addAll(keys);
				}
			}
			batch = (batch != null) ? batch : List.of();
			this.returned += batch.size();
			this.rounds++;
			pace();
			return batch;
		}
		catch (RuntimeException ex) {
			// Pages chained after a failed one fail too: a later call asks again from the cursors.
			this.ahead.clear();
			throw KeyNodes.translate(ex);
		}
	}

	/**
	 * The master's page at the cursor. Unpaced, it was requested ahead, and the pages after it are chained: each
	 * is sent by the driver's thread when the reply before it arrives, {@value #READ_AHEAD} pages deep.
	 */
	private CompletableFuture<KeyScanCursor<byte[]>> page(Node node, String cursor) {
		if (!this.readAhead) {
			return scan(node, cursor);
		}
		ArrayDeque<CompletableFuture<KeyScanCursor<byte[]>>> pages = this.ahead.computeIfAbsent(node.id(),
				(id) -> new ArrayDeque<>());
		if (pages.isEmpty()) {
			pages.add(scan(node, cursor));
		}
		while (pages.size() <= READ_AHEAD) {
			// The last page of a master completes its followers at once, sending nothing.
			pages.add(pages.getLast()
				.thenCompose((page) -> page.isFinished() ? CompletableFuture.completedFuture(page)
						: scan(node, page.getCursor())));
		}
		return pages.removeFirst();
	}

	private CompletableFuture<KeyScanCursor<byte[]>> scan(Node node, String cursor) {
		return node.commands().scan(ScanCursor.of(cursor), this.args).toCompletableFuture();
	}

	private static String decode(byte[] key) {
		return new String(key, StandardCharsets.UTF_8);
	}

	private void pace() {
		long waitNanos = this.options.pause().toNanos();
		if (this.options.keysPerSecond() > 0) {
			long due = this.startNanos + TimeUnit.SECONDS.toNanos(1) * this.returned / this.options.keysPerSecond();
			waitNanos = Math.max(waitNanos, due - System.nanoTime());
		}
		if (waitNanos > 0 && !this.cursors.isEmpty()) {
			try {
				TimeUnit.NANOSECONDS.sleep(waitNanos);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Key scan interrupted after " + this.rounds + " rounds", ex);
			}
		}
	}

}

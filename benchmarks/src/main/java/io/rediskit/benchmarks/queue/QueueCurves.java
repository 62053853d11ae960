package io.rediskit.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.api.StatefulRedisConnection;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.CurveChart;
import io.rediskit.benchmarks.Spread;
import io.rediskit.benchmarks.memory.ServerMemory;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.client.codec.StringCodec;
import tools.jackson.databind.json.JsonMapper;

/**
 * The queue's cost curve: as the backlog grows through the given sizes, the bytes per waiting message, and the
 * rates of enqueueing and of draining, redis-kit's delay queue beside Redisson's {@code RDelayedQueue} (for the
 * backlog of due messages, the {@code RBlockingQueue} it feeds) and the same-script floor
 * ({@link QueueScriptFloor}). Every message carries a {@value #PAYLOAD_BYTES}-byte payload.
 * <ul>
 * <li><b>Enqueue</b>: one queue grows from empty through each size; the run's threads enqueue single messages,
 * each due in an hour (so they wait), as fast as they can. The rate "at" a size is the rate over the messages
 * from the size before it (or empty) up to it; the bytes per waiting message at a size are the growth of the
 * server's {@code used_memory} from the empty queue, over the messages then waiting.</li>
 * <li><b>Drain</b>: a queue is filled in bulk (pipelined batches, not measured) with the largest size of due
 * messages, then taken by {@value #CONSUMERS} consumers with a handler that does nothing (a redis-kit listener
 * container of that concurrency; {@value #CONSUMERS} Redisson threads in {@code poll}; the floor's claim and ack
 * scripts at the container's batch size) until it is empty. The rate "at" a size is the rate while the backlog
 * fell from that size to the size below it (or to empty).</li>
 * </ul>
 * Each round runs every library, in a rotating order, after an unmeasured enqueue for the run's warm-up on a
 * queue of its own; the median round is reported.
 */
public final class QueueCurves {

	static final int PAYLOAD_BYTES = 100;

	static final int CONSUMERS = 8;

	private static final String PAYLOAD = "x".repeat(PAYLOAD_BYTES);

	private static final Duration DUE_IN = Duration.ofHours(1);

	private static final String PREFIX = "bench:curves:";

	private static final List<String> LIBRARIES = List.of("redis-kit", "redisson", "floor");

	private final BenchmarkContext context;

	private final ServerMemory meter;

	private final List<Long> sizes;

	private final KeyNaming naming = new KeyNaming(PREFIX);

	private final QueueRegistry registry;

	private QueueCurves(BenchmarkContext context, ServerMemory meter, List<Long> sizes) {
		this.context = context;
		this.meter = meter;
		this.sizes = sizes;
		this.registry = new QueueRegistry(ScriptExecutor.of(context.connectionFactory()), context.connectionFactory(),
				this.naming, JsonMapper.builder().build(), List.of(), (name) -> null);
	}

	/**
	 * Grows and drains the queues through the sizes.
	 * @param context the run
	 * @param meter the server's memory
	 * @param sizes backlogs, ascending
	 * @param filePrefix the charts go to {@code <filePrefix>-queue-enqueue.png}, {@code -queue-drain.png} and
	 * {@code -queue-bytes.png}
	 * @return the figures by library and size
	 * @throws Exception if the server cannot be reached or a chart cannot be written
	 */
	public static Map<String, Object> run(BenchmarkContext context, ServerMemory meter, List<Long> sizes,
			String filePrefix) throws Exception {
		QueueCurves curves = new QueueCurves(context, meter, sizes);
		try {
			return curves.run(filePrefix);
		}
		finally {
			curves.registry.close();
			meter.clean(PREFIX);
		}
	}

	private Map<String, Object> run(String filePrefix) throws Exception {
		Map<String, List<Segments>> enqueues = new LinkedHashMap<>();
		Map<String, List<Segments>> drains = new LinkedHashMap<>();
		for (int round = 0; round < this.context.options().rounds(); round++) {
			for (int i = 0; i < LIBRARIES.size(); i++) {
				String library = LIBRARIES.get((round + i) % LIBRARIES.size());
				this.context.progress("curve.queue " + library + ": round " + (round + 1));
				enqueues.computeIfAbsent(library, (name) -> new ArrayList<>()).add(enqueue(library));
				drains.computeIfAbsent(library, (name) -> new ArrayList<>()).add(drain(library));
			}
		}
		Map<String, List<Double>> enqueueRates = new LinkedHashMap<>();
		Map<String, List<Double>> drainRates = new LinkedHashMap<>();
		Map<String, List<Double>> bytes = new LinkedHashMap<>();
		Map<String, Object> json = new LinkedHashMap<>();
		for (String library : LIBRARIES) {
			Map<String, Object> bySize = new LinkedHashMap<>();
			for (int s = 0; s < this.sizes.size(); s++) {
				int index = s;
				List<Double> enqueueByRound = enqueues.get(library).stream().map((run) -> run.rates[index]).toList();
				List<Double> drainByRound = drains.get(library).stream().map((run) -> run.rates[index]).toList();
				String figure = "curve.queue " + this.sizes.get(s) + " waiting " + library;
				Map<String, Spread> spreads = new LinkedHashMap<>();
				spreads.put("enqueue", this.context.spread(figure + " enqueue", enqueueByRound));
				spreads.put("drain", this.context.spread(figure + " drain", drainByRound));
				double enqueue = spreads.get("enqueue").median();
				double drain = spreads.get("drain").median();
				// Bytes are counted, not timed: their rounds agree unless the server's allocator moved, no noise flag.
				double perMessage = Spread.of(enqueues.get(library).stream().map((run) -> run.bytes[index]).toList())
					.median();
				enqueueRates.computeIfAbsent(library, (name) -> new ArrayList<>()).add(enqueue);
				drainRates.computeIfAbsent(library, (name) -> new ArrayList<>()).add(drain);
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("enqueuesPerSecond", Math.round(enqueue));
				result.put("enqueuesPerSecondByRound", enqueueByRound.stream().map(Math::round).toList());
				result.put("enqueueSpread", spreads.get("enqueue").toJson().get("spread"));
				result.put("enqueueNoisy", spreads.get("enqueue").noisy());
				result.put("drainedPerSecond", Math.round(drain));
				result.put("drainedPerSecondByRound", drainByRound.stream().map(Math::round).toList());
				result.put("drainSpread", spreads.get("drain").toJson().get("spread"));
				result.put("drainNoisy", spreads.get("drain").noisy());
				if (!library.equals("floor")) {
					// The floor runs the same scripts on the same keys: its bytes are redis-kit's.
					bytes.computeIfAbsent(library, (name) -> new ArrayList<>()).add(perMessage);
					result.put("bytesPerWaitingMessage", Math.round(perMessage));
				}
				bySize.put(Long.toString(this.sizes.get(s)), result);
				System.out.printf("curve.queue %,10d waiting %-10s enqueue %,9.0f/s  drain %,9.0f/s%s  %s%n",
						this.sizes.get(s), library, enqueue, drain,
						library.equals("floor") ? "" : String.format("  %,6.0f bytes/waiting message", perMessage),
						Spread.token(spreads));
			}
			json.put(library, bySize);
		}
		json.put("payloadBytes", PAYLOAD_BYTES);
		json.put("consumers", CONSUMERS);
		var out = this.context.options().outputDirectory();
		CurveChart.write(out.resolve(filePrefix + "-queue-enqueue.png"),
				"Queue: enqueues per second as the backlog grows (run's threads, median round)", "messages waiting",
				"enqueues/s", this.sizes, enqueueRates);
		CurveChart.write(out.resolve(filePrefix + "-queue-drain.png"),
				"Queue: deliveries per second draining a backlog (" + CONSUMERS + " consumers, median round)",
				"messages waiting", "deliveries/s", this.sizes, drainRates);
		CurveChart.write(out.resolve(filePrefix + "-queue-bytes.png"),
				"Queue: Redis bytes per waiting message (" + PAYLOAD_BYTES + "-byte payload)", "messages waiting",
				"bytes per message", this.sizes, bytes);
		return json;
	}

	/** One library's enqueue segments on a fresh queue, after its warm-up on another. */
	private Segments enqueue(String library) throws Exception {
		Segments segments = new Segments(this.sizes.size());
		String name = "curve-enqueue-" + System.nanoTime();
		try (StatefulRedisConnection<byte[], byte[]> connection = this.context.connectLettuce()) {
			Target warm = target(library, name + "-warm", connection);
			try {
				bounded(library + " warm-up", Long.MAX_VALUE, this.context.options().warmup(), warm.enqueue);
			}
			finally {
				warm.purge.run();
			}
			Target target = target(library, name, connection);
			try {
				long empty = this.meter.usedMemory();
				long from = 0;
				for (int s = 0; s < this.sizes.size(); s++) {
					long to = this.sizes.get(s);
					segments.rates[s] = bounded(library + " enqueue to " + to, to - from, null, target.enqueue);
					segments.bytes[s] = (this.meter.usedMemory() - empty) / (double) to;
					from = to;
				}
			}
			finally {
				target.purge.run();
			}
		}
		return segments;
	}

	/** What one library enqueues with, and how its queue is emptied afterwards. */
	private record Target(Operation enqueue, Runnable purge) {
	}

	private Target target(String library, String name, StatefulRedisConnection<byte[], byte[]> connection) {
		switch (library) {
			case "redis-kit" -> {
				RedisQueue<String> queue = this.registry.create(name, QueueSpec.defaults(), String.class);
				return new Target(() -> queue.enqueue(PAYLOAD, DUE_IN), queue::purge);
			}
			case "redisson" -> {
				RBlockingQueue<String> destination = this.context.redisson()
					.getBlockingQueue(PREFIX + "redisson:" + name, StringCodec.INSTANCE);
				@SuppressWarnings("deprecation")
				RDelayedQueue<String> delayed = this.context.redisson().getDelayedQueue(destination);
				return new Target(() -> delayed.offer(PAYLOAD, DUE_IN.toMillis(), TimeUnit.MILLISECONDS), () -> {
					delayed.delete();
					delayed.destroy();
					destination.delete();
				});
			}
			default -> {
				QueueScriptFloor floor = new QueueScriptFloor(connection, this.naming, name);
				String json = "\"" + PAYLOAD + "\"";
				return new Target(() -> floor.enqueue(json, DUE_IN.toMillis()), floor::purge);
			}
		}
	}

	/**
	 * Calls {@code operation} from the run's threads until {@code count} calls are made or {@code limit} passes.
	 * @return calls per second
	 */
	private double bounded(String label, long count, @Nullable Duration limit, Operation operation) throws Exception {
		int threads = this.context.options().threads();
		AtomicLong tickets = new AtomicLong();
		AtomicLong failures = new AtomicLong();
		AtomicReference<Exception> first = new AtomicReference<>();
		long deadline = (limit != null) ? System.nanoTime() + limit.toNanos() : Long.MAX_VALUE;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			workers.add(CompletableFuture.runAsync(() -> {
				ready.countDown();
				try {
					go.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				while (tickets.getAndIncrement() < count && System.nanoTime() < deadline) {
					try {
						operation.run();
					}
					catch (Exception ex) {
						failures.incrementAndGet();
						first.compareAndSet(null, ex);
					}
				}
			}, pool));
		}
		ready.await();
		long start = System.nanoTime();
		go.countDown();
		CompletableFuture.allOf(workers.toArray(CompletableFuture<?>[]::new)).join();
		long elapsed = System.nanoTime() - start;
		pool.shutdown();
		if (failures.get() > 0) {
			this.context.reportAnomaly("curve.queue " + label + ": " + failures.get() + " calls failed", first.get());
		}
		long made = Math.min(tickets.get(), count);
		return made * 1e9 / Math.max(1, elapsed);
	}

	/** One library's drain of the largest backlog, timed as it passes each size. */
	private Segments drain(String library) throws Exception {
		long total = this.sizes.get(this.sizes.size() - 1);
		Drain drain = new Drain(this.sizes);
		String name = "curve-drain-" + System.nanoTime();
		switch (library) {
			case "redis-kit" -> {
				RedisQueue<String> queue = this.registry.create(name, QueueSpec.defaults(), String.class);
				fill(queue, total);
				QueueListenerContainer<String> container = this.registry.createContainer(queue,
						(message) -> drain.delivered(1), CONSUMERS);
				drain.start();
				container.start();
				try {
					drain.await(this.context, library);
				}
				finally {
					container.stop();
					queue.purge();
				}
			}
			case "redisson" -> {
				RBlockingQueue<String> queue = this.context.redisson()
					.getBlockingQueue(PREFIX + "redisson:" + name, StringCodec.INSTANCE);
				List<RFuture<Boolean>> adds = new ArrayList<>();
				for (long from = 0; from < total; from += 1000) {
					adds.add(queue.addAllAsync(Collections.nCopies((int) Math.min(1000, total - from), PAYLOAD)));
				}
				adds.forEach((add) -> add.toCompletableFuture().join());
				AtomicBoolean consuming = new AtomicBoolean(true);
				ExecutorService consumers = Executors.newFixedThreadPool(CONSUMERS);
				drain.start();
				for (int c = 0; c < CONSUMERS; c++) {
					consumers.execute(() -> {
						while (consuming.get()) {
							try {
								if (queue.poll(200, TimeUnit.MILLISECONDS) != null) {
									drain.delivered(1);
								}
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
								return;
							}
							catch (RuntimeException ex) {
								this.context.reportAnomaly("curve.queue redisson poll failed", ex);
							}
						}
					});
				}
				try {
					drain.await(this.context, library);
				}
				finally {
					consuming.set(false);
					consumers.shutdown();
					consumers.awaitTermination(10, TimeUnit.SECONDS);
					queue.delete();
				}
			}
			default -> {
				try (StatefulRedisConnection<byte[], byte[]> connection = this.context.connectLettuce()) {
					QueueScriptFloor floor = new QueueScriptFloor(connection, this.naming, name);
					// Filled through redis-kit: the floor's keys are the queue's of that name.
					fill(this.registry.create(name, QueueSpec.defaults(), String.class), total);
					int batch = CONSUMERS + CONSUMERS * QueueListenerContainer.DEFAULT_PREFETCH_PER_HANDLER;
					drain.start();
					try {
						int claimed;
						do {
							claimed = floor.claimAndAck(batch, 30_000);
							drain.delivered(claimed);
						}
						while (claimed > 0 && !drain.isDone());
						drain.await(this.context, library);
					}
					finally {
						floor.purge();
					}
				}
			}
		}
		return drain.segments();
	}

	/** Fills a queue with due messages in pipelined batches of a thousand: the set-up, not measured. */
	private void fill(RedisQueue<String> queue, long count) {
		long start = System.nanoTime();
		List<CompletableFuture<List<String>>> batches = new ArrayList<>();
		for (long from = 0; from < count; from += 1000) {
			List<QueueEntry<String>> entries = new ArrayList<>(1000);
			for (long i = from; i < Math.min(count, from + 1000); i++) {
				entries.add(QueueEntry.of(PAYLOAD));
			}
			batches.add(queue.enqueueAllAsync(entries).toCompletableFuture());
			if (batches.size() == 16) {
				batches.forEach(CompletableFuture::join);
				batches.clear();
			}
		}
		batches.forEach(CompletableFuture::join);
		this.context.progress("curve.queue: filled " + count + " due messages in "
				+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms");
	}

	@FunctionalInterface
	private interface Operation {

		void run() throws Exception;

	}

	/** Rates and bytes per size, of one library in one round. */
	private static final class Segments {

		final double[] rates;

		final double[] bytes;

		Segments(int sizes) {
			this.rates = new double[sizes];
			this.bytes = new double[sizes];
		}

	}

	/**
	 * A drain from the largest size to empty: the time at which the deliveries reach each mark, a mark being the
	 * count at which the backlog has fallen to a size.
	 */
	private static final class Drain {

		private final List<Long> sizes;

		private final long total;

		/** Deliveries at which the backlog is down to each size, largest size first, then empty. */
		private final long[] marks;

		private final AtomicLongArray times;

		private final AtomicLong delivered = new AtomicLong();

		private final CountDownLatch done = new CountDownLatch(1);

		Drain(List<Long> sizes) {
			this.sizes = sizes;
			this.total = sizes.get(sizes.size() - 1);
			this.marks = new long[sizes.size() + 1];
			for (int m = 0; m < sizes.size(); m++) {
				this.marks[m] = this.total - sizes.get(sizes.size() - 1 - m);
			}
			this.marks[sizes.size()] = this.total;
			this.times = new AtomicLongArray(this.marks.length);
		}

		void start() {
			this.times.set(0, System.nanoTime());
		}

		void delivered(int count) {
			long after = this.delivered.addAndGet(count);
			long now = System.nanoTime();
			for (int m = 1; m < this.marks.length; m++) {
				if (after >= this.marks[m]) {
					this.times.compareAndSet(m, 0, now);
				}
			}
			if (after >= this.total) {
				this.done.countDown();
			}
		}

		boolean isDone() {
			return this.done.getCount() == 0;
		}

		void await(BenchmarkContext context, String library) throws InterruptedException {
			// Generous: the slowest library here drains tens of thousands a second.
			long seconds = 60 + this.total / 1000;
			if (!this.done.await(seconds, TimeUnit.SECONDS)) {
				context.reportAnomaly("curve.queue " + library + ": drained " + this.delivered.get() + " of "
						+ this.total + " in " + seconds + " s", null);
			}
		}

		/** The rate while the backlog fell from each size to the one below it, in the order of the sizes. */
		Segments segments() {
			Segments segments = new Segments(this.sizes.size());
			for (int s = 0; s < this.sizes.size(); s++) {
				// Size s is passed at mark (n - 1 - s) and the size below it (or empty) at the next mark.
				int m = this.sizes.size() - 1 - s;
				long count = this.marks[m + 1] - this.marks[m];
				long nanos = this.times.get(m + 1) - this.times.get(m);
				segments.rates[s] = (this.times.get(m + 1) == 0) ? Double.NaN : count * 1e9 / Math.max(1, nanos);
			}
			return segments;
		}

	}

}

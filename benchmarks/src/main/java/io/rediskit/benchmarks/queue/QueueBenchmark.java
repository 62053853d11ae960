package io.rediskit.benchmarks.queue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.CpuMeter;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.Spread;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import tools.jackson.databind.json.JsonMapper;

/**
 * redis-kit's delay queue against Redisson's {@code RDelayedQueue} feeding an {@code RBlockingQueue}, on one
 * server, in one run:
 * <ul>
 * <li>{@code queue.enqueue}: messages enqueued per second by the benchmark's threads, each due in an hour, and
 * the same-script floor ({@link QueueScriptFloor});</li>
 * <li>{@code queue.end-to-end}: one producer enqueues {@value #RATE} messages a second, each due
 * {@value #DELAY_MILLIS} ms later, for the run's duration; {@value #CONSUMERS} consumers take them (redis-kit: a
 * listener container of that concurrency; Redisson: that many threads in {@code poll}). Reported: deliveries
 * per second, and lateness (receipt minus due time, both on this JVM's clock, which is the server's: same
 * machine) at p50, p99 and max; lateness over time goes to {@code queue-lateness.png}. One run per library, not
 * rounds: its rate is the producer's, and its lateness is a distribution of thousands of messages already;</li>
 * <li>{@code queue.drain} and {@code queue.consume}: a burst due at once and a steady backlog, taken by
 * consumers of concurrency 8 and 32, with the claim and ack scripts' floor ({@link QueueDrainScenarios}).</li>
 * </ul>
 * {@code queue.enqueue}, {@code queue.drain} and {@code queue.consume} run every library in the run's rounds, in a
 * rotating order, and report the median round with the rounds' {@link Spread}.
 */
public final class QueueBenchmark implements Benchmark {

	static final int RATE = 1000;

	static final long DELAY_MILLIS = 2000;

	static final int CONSUMERS = 8;

	private static final String REDIS_KIT = "redis-kit";

	private static final String REDISSON = "Redisson";

	private static final String FLOOR = "floor";

	@Override
	public String name() {
		return "queue";
	}

	/** The key naming of every queue a queue benchmark makes, the floor's too. */
	static final KeyNaming NAMING = new KeyNaming("bench:");

	/**
	 * @param context the run
	 * @return the registry of the queues a queue benchmark makes: defaults, JSON payloads, no listeners of its own
	 */
	static QueueRegistry registry(BenchmarkContext context) {
		return new QueueRegistry(ScriptExecutor.of(context.connectionFactory()), context.connectionFactory(), NAMING,
				JsonMapper.builder().build(), List.of(), (name) -> null);
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		KeyNaming naming = NAMING;
		QueueRegistry registry = registry(context);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("environment", context.environment());
		try {
			Map<String, Spread> enqueue = context.rounds("queue.enqueue", List.of(REDIS_KIT, REDISSON, FLOOR),
					(library) -> switch (library) {
						case REDIS_KIT -> enqueueRedisKit(context, registry);
						case REDISSON -> enqueueRedisson(context);
						default -> enqueueFloor(context, naming);
					});
			Map<String, Object> enqueueJson = new LinkedHashMap<>();
			enqueue.forEach((library, spread) -> enqueueJson.put(library, spread.median()));
			json.put("enqueuePerSecond", enqueueJson);
			Map<String, Object> enqueueRounds = new LinkedHashMap<>();
			enqueue.forEach((library, spread) -> enqueueRounds.put(library, spread.toJson()));
			json.put("enqueueRounds", enqueueRounds);
			for (Map.Entry<String, Spread> entry : enqueue.entrySet()) {
				CpuMeter.Cost cpu = context.cpu("queue.enqueue").median(entry.getKey());
				System.out.printf("queue.enqueue %-10s %10.0f enqueues/s  %s  cpu-us/op=%.1f+%.1f%n", entry.getKey(),
						entry.getValue().median(), entry.getValue().token(), cpu.clientMicros(), cpu.serverMicros());
			}
			EndToEnd kit = endToEndRedisKit(context, registry);
			EndToEnd redisson = endToEndRedisson(context);
			json.put("endToEnd", Map.of(REDIS_KIT, kit.toJson(), REDISSON, redisson.toJson()));
			for (EndToEnd run : List.of(kit, redisson)) {
				System.out.println(run.line());
			}
			json.putAll(new QueueDrainScenarios(context, registry, naming).run());
			Path directory = context.options().outputDirectory();
			Files.createDirectories(directory);
			JsonWriter.write(directory.resolve(name() + ".json"), json);
			writeChart(directory.resolve(name() + "-lateness.png"), context, List.of(kit, redisson));
		}
		finally {
			registry.close();
		}
	}

	private double enqueueRedisKit(BenchmarkContext context, QueueRegistry registry) throws InterruptedException {
		RedisQueue<String> queue = registry.create("enqueue-" + System.nanoTime(), QueueSpec.defaults(),
				String.class);
		try {
			ConcurrentLoad.Outcome outcome = context.load("queue.enqueue " + REDIS_KIT)
				.run((thread) -> queue.enqueue("payload-" + thread, Duration.ofHours(1)));
			return outcome.opsPerSecond();
		}
		finally {
			queue.purge();
		}
	}

	private double enqueueFloor(BenchmarkContext context, KeyNaming naming) throws InterruptedException {
		try (var connection = context.connectLettuce()) {
			QueueScriptFloor floor = new QueueScriptFloor(connection, naming, "floor-" + System.nanoTime());
			try {
				return context.load("queue.enqueue " + FLOOR)
					.run((thread) -> floor.enqueue("\"payload-" + thread + "\"", Duration.ofHours(1).toMillis()))
					.opsPerSecond();
			}
			finally {
				floor.purge();
			}
		}
	}

	private double enqueueRedisson(BenchmarkContext context) throws InterruptedException {
		String name = "bench:redisson-enqueue-" + System.nanoTime();
		RBlockingQueue<String> destination = context.redisson().getBlockingQueue(name);
		@SuppressWarnings("deprecation")
		RDelayedQueue<String> delayed = context.redisson().getDelayedQueue(destination);
		try {
			ConcurrentLoad.Outcome outcome = context.load("queue.enqueue " + REDISSON)
				.run((thread) -> delayed.offer("payload-" + thread, 1, TimeUnit.HOURS));
			return outcome.opsPerSecond();
		}
		finally {
			delayed.delete();
			delayed.destroy();
			destination.delete();
		}
	}

	private EndToEnd endToEndRedisKit(BenchmarkContext context, QueueRegistry registry) throws Exception {
		RedisQueue<Long> queue = registry.create("e2e-" + System.nanoTime(), QueueSpec.defaults(), Long.class);
		EndToEnd run = new EndToEnd(REDIS_KIT);
		QueueListenerContainer<Long> container = registry.createContainer(queue,
				(message) -> run.received(message.payload()), CONSUMERS);
		container.start();
		try {
			produce(context, run, (sent) -> queue.enqueue(sent, Duration.ofMillis(DELAY_MILLIS)));
		}
		finally {
			container.stop();
			queue.purge();
		}
		return run;
	}

	private EndToEnd endToEndRedisson(BenchmarkContext context) throws Exception {
		String name = "bench:redisson-e2e-" + System.nanoTime();
		RBlockingQueue<Long> destination = context.redisson().getBlockingQueue(name);
		@SuppressWarnings("deprecation")
		RDelayedQueue<Long> delayed = context.redisson().getDelayedQueue(destination);
		EndToEnd run = new EndToEnd(REDISSON);
		AtomicBoolean consuming = new AtomicBoolean(true);
		ExecutorService consumers = Executors.newFixedThreadPool(CONSUMERS);
		for (int c = 0; c < CONSUMERS; c++) {
			consumers.execute(() -> {
				while (consuming.get()) {
					try {
						Long sent = destination.poll(200, TimeUnit.MILLISECONDS);
						if (sent != null) {
							run.received(sent);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					catch (RuntimeException ex) {
						context.reportAnomaly("Redisson poll failed", ex);
					}
				}
			});
		}
		try {
			produce(context, run, (sent) -> delayed.offer(sent, DELAY_MILLIS, TimeUnit.MILLISECONDS));
		}
		finally {
			consuming.set(false);
			consumers.shutdown();
			consumers.awaitTermination(10, TimeUnit.SECONDS);
			delayed.delete();
			delayed.destroy();
			destination.delete();
		}
		return run;
	}

	/** Sends {@value #RATE} a second for the run's duration, then waits for the last due time plus 10 s. */
	private static void produce(BenchmarkContext context, EndToEnd run, Producer producer) throws Exception {
		long count = RATE * Math.max(1, context.options().duration().toSeconds());
		context.progress("queue.end-to-end " + run.library + ": " + count + " messages at " + RATE + "/s, due "
				+ DELAY_MILLIS + " ms after each enqueue");
		long start = System.nanoTime();
		run.startMillis = System.currentTimeMillis();
		for (long i = 0; i < count; i++) {
			long target = start + i * 1_000_000_000L / RATE;
			long wait = target - System.nanoTime();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			try {
				producer.send(System.currentTimeMillis());
				run.sent.incrementAndGet();
			}
			catch (RuntimeException ex) {
				context.reportAnomaly(run.library + " enqueue failed", ex);
			}
		}
		long deadline = System.currentTimeMillis() + DELAY_MILLIS + 10_000;
		while (run.delivered.get() < run.sent.get() && System.currentTimeMillis() < deadline) {
			Thread.sleep(20);
		}
		if (run.delivered.get() < run.sent.get()) {
			context.reportAnomaly(run.library + ": " + (run.sent.get() - run.delivered.get()) + " of " + run.sent.get()
					+ " messages not delivered 10 s after their due time", null);
		}
	}

	private static void writeChart(Path file, BenchmarkContext context, List<EndToEnd> runs) throws IOException {
		XYChart chart = new XYChartBuilder().width(900)
			.height(500)
			.title("Delay queue lateness: " + RATE + " msg/s due " + DELAY_MILLIS + " ms after enqueue, Redis "
					+ context.redisVersion())
			.xAxisTitle("seconds since the first enqueue")
			.yAxisTitle("lateness (ms)")
			.build();
		chart.getStyler().setDefaultSeriesRenderStyle(XYSeriesRenderStyle.Scatter);
		chart.getStyler().setMarkerSize(3);
		for (EndToEnd run : runs) {
			List<Double> x = new ArrayList<>();
			List<Double> y = new ArrayList<>();
			for (long[] point : run.points) {
				x.add((point[0] - run.startMillis) / 1000.0);
				y.add((double) point[1]);
			}
			if (!x.isEmpty()) {
				chart.addSeries(run.library, x, y);
			}
		}
		BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
	}

	@FunctionalInterface
	private interface Producer {

		void send(long sentMillis);

	}

	/** One library's end-to-end run: what was sent and when each message arrived. */
	private static final class EndToEnd {

		final String library;

		final AtomicLong sent = new AtomicLong();

		final AtomicLong delivered = new AtomicLong();

		final LatencySample lateness = new LatencySample(1 << 20);

		final Queue<long[]> points = new ConcurrentLinkedQueue<>();

		final AtomicLong maxMillis = new AtomicLong();

		volatile long startMillis;

		volatile long firstMillis;

		volatile long lastMillis;

		EndToEnd(String library) {
			this.library = library;
		}

		void received(long sentMillis) {
			long now = System.currentTimeMillis();
			long late = Math.max(0, now - (sentMillis + DELAY_MILLIS));
			this.lateness.record(TimeUnit.MILLISECONDS.toNanos(late));
			this.maxMillis.accumulateAndGet(late, Math::max);
			this.points.add(new long[] { sentMillis + DELAY_MILLIS, late });
			if (this.delivered.incrementAndGet() == 1) {
				this.firstMillis = now;
			}
			this.lastMillis = now;
		}

		double deliveriesPerSecond() {
			long span = this.lastMillis - this.firstMillis;
			return (span > 0) ? this.delivered.get() * 1000.0 / span : Double.NaN;
		}

		String line() {
			double[] p = this.lateness.percentilesMicros(50, 99);
			return String.format("queue.end-to-end %-10s %10.0f deliveries/s  lateness p50 %7.1f ms  p99 %7.1f ms  "
					+ "max %6d ms  (%d of %d delivered)", this.library, deliveriesPerSecond(), p[0] / 1000,
					p[1] / 1000, this.maxMillis.get(), this.delivered.get(), this.sent.get());
		}

		Map<String, Object> toJson() {
			double[] p = this.lateness.percentilesMicros(50, 99);
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("sent", this.sent.get());
			json.put("delivered", this.delivered.get());
			json.put("deliveriesPerSecond", deliveriesPerSecond());
			json.put("latenessP50Millis", p[0] / 1000);
			json.put("latenessP99Millis", p[1] / 1000);
			json.put("latenessMaxMillis", this.maxMillis.get());
			return json;
		}

	}

}

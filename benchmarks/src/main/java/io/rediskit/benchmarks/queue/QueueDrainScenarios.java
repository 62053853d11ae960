package io.rediskit.benchmarks.queue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.CpuMeter;
import io.rediskit.benchmarks.JitCompiler;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.MedianRound;
import io.rediskit.benchmarks.Spread;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.KeyNaming;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * The consumer side of the queue, redis-kit against Redisson and the script floor, in one run:
 * <ul>
 * <li>{@code queue.drain}: {@value #BURST} messages due at the same instant, a handler that does nothing, at
 * concurrency 8 and 32 (redis-kit: one listener container of that concurrency with its default prefetch;
 * Redisson: {@code RDelayedQueue} into an {@code RBlockingQueue} taken by that many threads in {@code poll}).
 * Reported: lateness (receipt minus due time, on this JVM's clock, the server's: same machine) at p50, p99 and max,
 * and deliveries per second from the due time to the last receipt. The floor is the claim and ack scripts alone
 * ({@link QueueScriptFloor#claimAndAck}) at the container's batch size, concurrency plus prefetch.</li>
 * <li>{@code queue.consume}: a backlog of ready messages taken for the run's duration with a handler that does
 * nothing: steady deliveries (and acks) per second, the same three side by side.</li>
 * </ul>
 * Each runs the three once unmeasured (the warm-up, see {@link #warmUp}), then in the run's rounds, in a rotating
 * order, and reports the median round by deliveries per second, with the rounds' {@link io.rediskit.benchmarks.Spread}.
 */
final class QueueDrainScenarios {

	static final int BURST = 20_000;

	/** Warm-ups by consuming, at most, per library and drain scenario. */
	static final int MAX_WARM_UPS = 10;

	/** Warm-ups in a row in which the compiler stayed under its share, to call the compiling done. */
	static final int QUIET_WARM_UPS = 2;

	static final int[] CONCURRENCIES = { 8, 32 };

	/**
	 * The prefetch per handler of {@code queue-drain}'s third drain, concurrency 8 with the claims of concurrency 32
	 * (8 + 8 x 19 = 160): what raising {@code redis-kit.queue.listener.prefetch} does for a burst at concurrency 8,
	 * against the floor at the same batch.
	 */
	static final int RAISED_PREFETCH_PER_HANDLER = 19;

	private static final List<String> LIBRARIES = List.of("redis-kit", "Redisson", "floor");

	/** Without Redisson: what {@code queue-drain} compares, the container against its floor. */
	private static final List<String> OWN = List.of("redis-kit", "floor");

	/** Time between the end of the enqueue and the burst's due time, so that enqueueing is not measured. */
	static final long LEAD_MILLIS = 3000;

	private final BenchmarkContext context;

	private final QueueRegistry registry;

	private final KeyNaming naming;

	private final List<String> libraries;

	private final boolean drainOnly;

	QueueDrainScenarios(BenchmarkContext context, QueueRegistry registry, KeyNaming naming) {
		this(context, registry, naming, false);
	}

	/**
	 * @param drainOnly whether to run {@code queue.drain} alone, redis-kit against its floor without Redisson (the
	 * {@code queue-drain} subcommand: a fifth of the time, for comparing builds of the container)
	 */
	QueueDrainScenarios(BenchmarkContext context, QueueRegistry registry, KeyNaming naming, boolean drainOnly) {
		this.context = context;
		this.registry = registry;
		this.naming = naming;
		this.libraries = drainOnly ? OWN : LIBRARIES;
		this.drainOnly = drainOnly;
	}

	/** @return the figures by scenario, library and concurrency, for the JSON report */
	Map<String, Object> run() throws Exception {
		Map<String, Object> drain = new LinkedHashMap<>();
		Map<String, Object> consume = new LinkedHashMap<>();
		long warmup = this.context.options().warmup().toMillis();
		List<int[]> shapes = new ArrayList<>();
		for (int concurrency : CONCURRENCIES) {
			shapes.add(new int[] { concurrency, concurrency * QueueListenerContainer.DEFAULT_PREFETCH_PER_HANDLER });
		}
		if (this.drainOnly) {
			shapes.add(new int[] { CONCURRENCIES[0], CONCURRENCIES[0] * RAISED_PREFETCH_PER_HANDLER });
		}
		for (int[] shape : shapes) {
			int concurrency = shape[0];
			int prefetch = shape[1];
			boolean raised = prefetch != concurrency * QueueListenerContainer.DEFAULT_PREFETCH_PER_HANDLER;
			int batch = concurrency + prefetch;
			BenchmarkContext.Run<Run> drainRun = (library) -> switch (library) {
				case "redis-kit" -> drainRedisKit(concurrency, prefetch);
				case "Redisson" -> drainRedisson(concurrency);
				default -> floor(BURST, batch, null);
			};
			String label = raised ? concurrency + " prefetch " + prefetch : String.valueOf(concurrency);
			String drainScenario = "queue.drain concurrency " + label;
			BenchmarkContext.Run<Run> consumeWarmUp = (library) -> switch (library) {
				case "redis-kit" -> consumeRedisKit(concurrency, prefetch, warmup);
				case "Redisson" -> consumeRedisson(concurrency, warmup);
				default -> floor(Integer.MAX_VALUE, batch, warmup);
			};
			warmUpUntilCompiled(drainScenario, consumeWarmUp);
			warmUp(drainScenario, drainRun);
			Map<String, MedianRound<Run>> drains = this.context.medianRounds(drainScenario, this.libraries, drainRun,
					Run::perSecond);
			drain.put("concurrency-" + concurrency + (raised ? "-prefetch-" + prefetch : ""),
					report("queue.drain", drains, label, concurrency, batch));
			if (this.drainOnly) {
				continue;
			}
			long millis = this.context.options().duration().toMillis();
			String consumeScenario = "queue.consume concurrency " + concurrency;
			warmUp(consumeScenario, consumeWarmUp);
			Map<String, MedianRound<Run>> consumes = this.context.medianRounds(consumeScenario, this.libraries,
					(library) -> switch (library) {
						case "redis-kit" -> consumeRedisKit(concurrency, prefetch, millis);
						case "Redisson" -> consumeRedisson(concurrency, millis);
						default -> floor(Integer.MAX_VALUE, batch, millis);
					}, Run::perSecond);
			consume.put("concurrency-" + concurrency, report("queue.consume", consumes, label, concurrency, batch));
		}
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("drain", drain);
		json.put("consume", consume);
		return json;
	}

	/**
	 * Runs every library once, unmeasured, before a scenario's rounds (unless {@code --warmup=0s}): the code a
	 * scenario runs (a drain's claims of the whole batch, the floor's calls, Redisson's polls at this concurrency)
	 * is otherwise compiled by the JIT during the first measured round of each library, whose processor time and
	 * rate then include the compiler's, and most in the first scenario of the run. A drain's warm-up is the whole
	 * burst, a consume's lasts the run's warm-up.
	 */
	private void warmUp(String scenario, BenchmarkContext.Run<Run> run) throws Exception {
		if (this.context.options().warmup().isZero()) {
			return;
		}
		for (String library : this.libraries) {
			this.context.progress(scenario + " " + library + ": warming up, not measured");
			run.run(library);
		}
	}

	/**
	 * Before a drain's own warm-up (one unmeasured burst), each library consumes a backlog, the same claims of the
	 * whole batch and acks in batches the drain makes, for the run's warm-up, again while the JIT compiler spent
	 * more than {@value JitCompiler#QUIET_PERCENT}% of that time compiling, until it stayed under that share
	 * {@value #QUIET_WARM_UPS} times in a row (a quiet warm-up was once followed by one in which it compiled for a
	 * fifth of the time, 2026-11-29), at most {@value #MAX_WARM_UPS} times. One burst
	 * alone left the compiler running through the measured rounds of the run's first drain: its processor time per
	 * message then counted the compiler's (26 µs per message against 14.5 after this warm-up, on 2026-11-29), a
	 * figure of the run's order, not of the library.
	 */
	private void warmUpUntilCompiled(String scenario, BenchmarkContext.Run<Run> consume) throws Exception {
		if (this.context.options().warmup().isZero()) {
			return;
		}
		for (String library : this.libraries) {
			int quiet = 0;
			for (int time = 1; time <= MAX_WARM_UPS; time++) {
				JitCompiler compiler = JitCompiler.measure();
				consume.run(library);
				this.context.progress(String.format("%s %s: consumed to warm up (%d of at most %d), the compiler "
						+ "took %d ms of %d, not measured", scenario, library, time, MAX_WARM_UPS,
						compiler.compiledMillis(), compiler.elapsedMillis()));
				if (!JitCompiler.isMeasurable()) {
					break;
				}
				quiet = compiler.compiled() ? quiet + 1 : 0;
				if (quiet == QUIET_WARM_UPS) {
					break;
				}
			}
		}
	}

	private Run drainRedisKit(int concurrency, int prefetch) throws Exception {
		RedisQueue<Long> queue = this.registry.create("drain-" + System.nanoTime(), QueueSpec.defaults(), Long.class);
		Run run = new Run(BURST);
		Instant due = Instant.now().plusMillis(LEAD_MILLIS + BURST / 20);
		List<QueueEntry<Long>> entries = new ArrayList<>();
		for (long i = 0; i < BURST; i++) {
			entries.add(QueueEntry.of(due.toEpochMilli()).withDueAt(due));
			if (entries.size() == 5000) {
				queue.enqueueAll(entries);
				entries.clear();
			}
		}
		if (!entries.isEmpty()) {
			queue.enqueueAll(entries);
		}
		QueueListenerContainer<Long> container = this.registry.createContainer(queue,
				(message) -> run.received(message.payload()), concurrency);
		container.setPrefetch(prefetch);
		container.start();
		try {
			run.await(due.toEpochMilli(), this.context, "redis-kit");
		}
		finally {
			container.stop();
			queue.purge();
		}
		return run;
	}

	private Run drainRedisson(int concurrency) throws Exception {
		String name = "bench:redisson-drain-" + System.nanoTime();
		RBlockingQueue<Long> destination = this.context.redisson().getBlockingQueue(name);
		@SuppressWarnings("deprecation")
		RDelayedQueue<Long> delayed = this.context.redisson().getDelayedQueue(destination);
		Run run = new Run(BURST);
		long due = System.currentTimeMillis() + LEAD_MILLIS + BURST / 20;
		for (int i = 0; i < BURST; i++) {
			delayed.offerAsync(due, Math.max(0, due - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
		}
		ExecutorService consumers = redissonConsumers(destination, concurrency, run::received, new AtomicBoolean(true));
		try {
			run.await(due, this.context, "Redisson");
		}
		finally {
			consumers.shutdownNow();
			consumers.awaitTermination(10, TimeUnit.SECONDS);
			delayed.delete();
			delayed.destroy();
			destination.delete();
		}
		return run;
	}

	private Run consumeRedisKit(int concurrency, int prefetch, long millis) throws Exception {
		RedisQueue<Long> queue = this.registry.create("consume-" + System.nanoTime(), QueueSpec.defaults(),
				Long.class);
		Run run = new Run(Integer.MAX_VALUE);
		fill(queue, backlog(millis));
		QueueListenerContainer<Long> container = this.registry.createContainer(queue,
				(message) -> run.count(), concurrency);
		container.setPrefetch(prefetch);
		Work work = Work.start(this.context);
		long start = System.nanoTime();
		container.start();
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
			run.rate(run.delivered.get(), System.nanoTime() - start);
			run.work = work.stop(this.context, run.delivered.get());
		}
		finally {
			container.stop();
			queue.purge();
		}
		return run;
	}

	private Run consumeRedisson(int concurrency, long millis) throws Exception {
		String name = "bench:redisson-consume-" + System.nanoTime();
		RBlockingQueue<Long> destination = this.context.redisson().getBlockingQueue(name);
		Run run = new Run(Integer.MAX_VALUE);
		long backlog = backlog(millis);
		List<Long> chunk = new ArrayList<>();
		for (long i = 0; i < backlog; i++) {
			chunk.add(i);
			if (chunk.size() == 5000) {
				destination.addAll(chunk);
				chunk.clear();
			}
		}
		destination.addAll(chunk);
		AtomicBoolean consuming = new AtomicBoolean(true);
		Work work = Work.start(this.context);
		long start = System.nanoTime();
		// The backlog's payloads are indexes, not due times: counted, with no lateness.
		ExecutorService consumers = redissonConsumers(destination, concurrency, (index) -> run.count(), consuming);
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
			run.rate(run.delivered.get(), System.nanoTime() - start);
			run.work = work.stop(this.context, run.delivered.get());
		}
		finally {
			consuming.set(false);
			consumers.shutdown();
			consumers.awaitTermination(10, TimeUnit.SECONDS);
			destination.delete();
		}
		return run;
	}

	private ExecutorService redissonConsumers(RBlockingQueue<Long> destination, int concurrency,
			LongConsumer onMessage, AtomicBoolean consuming) {
		ExecutorService consumers = Executors.newFixedThreadPool(concurrency);
		for (int c = 0; c < concurrency; c++) {
			consumers.execute(() -> {
				while (consuming.get() && !Thread.currentThread().isInterrupted()) {
					try {
						Long payload = destination.poll(200, TimeUnit.MILLISECONDS);
						if (payload != null) {
							onMessage.accept(payload);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					catch (RuntimeException ex) {
						this.context.reportAnomaly("Redisson poll failed", ex);
					}
				}
			});
		}
		return consumers;
	}

	/** The claim and ack scripts alone: {@code count} messages, or as many as {@code millis} allow. */
	private Run floor(int count, int batch, @Nullable Long millis) {
		Run run = new Run(Integer.MAX_VALUE);
		try (var connection = this.context.connectLettuce()) {
			String name = "floor-drain-" + System.nanoTime();
			QueueScriptFloor floor = new QueueScriptFloor(connection, this.naming, name);
			try {
				long fill = (millis != null) ? backlog(millis) : count;
				// Filled in batches through redis-kit: the same keys, as the floor uses the run's key naming.
				fill(this.registry.create(name, QueueSpec.defaults(), Long.class), fill);
				Work work = Work.start(this.context);
				long start = System.nanoTime();
				long deadline = (millis != null) ? start + TimeUnit.MILLISECONDS.toNanos(millis) : Long.MAX_VALUE;
				long taken = 0;
				while (taken < fill && System.nanoTime() < deadline) {
					int claimed = floor.claimAndAck(batch, 30_000);
					if (claimed == 0) {
						break;
					}
					taken += claimed;
				}
				run.rate(taken, System.nanoTime() - start);
				run.work = work.stop(this.context, taken);
			}
			finally {
				floor.purge();
			}
		}
		return run;
	}

	/** A backlog no consumer can empty in the run: 100,000 a second of it. */
	private static long backlog(long millis) {
		return Math.max(10_000, millis * 100);
	}

	private static void fill(RedisQueue<Long> queue, long count) {
		List<QueueEntry<Long>> entries = new ArrayList<>();
		for (long i = 0; i < count; i++) {
			entries.add(QueueEntry.of(i));
			if (entries.size() == 5000) {
				queue.enqueueAll(entries);
				entries.clear();
			}
		}
		if (!entries.isEmpty()) {
			queue.enqueueAll(entries);
		}
	}

	/**
	 * @param label the scenario's concurrency as printed: {@code 8}, or {@code 8 prefetch 152} for a raised prefetch
	 */
	private static Map<String, Object> report(String scenario, Map<String, MedianRound<Run>> runs, String label,
			int concurrency, int batch) {
		Map<String, Object> json = new LinkedHashMap<>();
		runs.forEach((library, median) -> {
			int size = library.equals("floor") ? batch : concurrency;
			String what = library.equals("floor") ? "batch " + batch : "concurrency " + label;
			System.out.println(median.round().line(scenario, library, what) + "  " + median.spread().token());
			Map<String, Object> figures = median.round().toJson(size);
			figures.putAll(median.spread().toJson());
			json.put(library, figures);
		});
		MedianRound<Run> floor = runs.get("floor");
		MedianRound<Run> redisKit = runs.get("redis-kit");
		if (floor != null && redisKit != null && floor.spread().rounds().stream().allMatch((round) -> round > 0)) {
			// Each round of redis-kit against the floor's run next to it (BenchmarkContext.roundOrder).
			Spread ofFloor = Spread.paired(redisKit.spread(), floor.spread());
			System.out.printf("%s concurrency %s: %s%n", scenario, label,
					Spread.ofFloorToken(redisKit.spread(), floor.spread()));
			json.put("ofFloor", Math.round(ofFloor.median() * 100) / 100.0);
			json.put("ofFloorByRound", ofFloor.rounds());
		}
		if (scenario.equals("queue.drain") && floor != null && floor.round().perSecond() > 0) {
			// The floor's time for the whole burst: a lateness the machine's speed cannot move relative to it.
			double floorMillis = BURST * 1000.0 / floor.round().perSecond();
			StringBuilder line = new StringBuilder(String.format(
					"%s concurrency %s: lateness p99 over the floor's %.0f ms for the burst:", scenario, label,
					floorMillis));
			runs.forEach((library, median) -> {
				if (median.round().lateness.count() > 0) {
					double ratio = median.round().lateness.percentilesMicros(99)[0] / 1000 / floorMillis;
					line.append(String.format(" %s %.2f", library, ratio));
					@SuppressWarnings("unchecked")
					Map<String, Object> figures = (Map<String, Object>) json.get(library);
					figures.put("latenessP99OverFloorDrain", ratio);
				}
			});
			System.out.println(line);
		}
		return json;
	}

	/** What one library's run received. */
	private static final class Run {

		final long expected;

		final AtomicLong delivered = new AtomicLong();

		final LatencySample lateness = new LatencySample(1 << 16);

		final AtomicLong maxMillis = new AtomicLong();

		final CountDownLatch done;

		volatile long lastMillis;

		volatile double perSecond = Double.NaN;

		/** What the drain cost per message, where it was measured. */
		@Nullable PerMessage work;

		Run(long expected) {
			this.expected = expected;
			this.done = new CountDownLatch((expected == Integer.MAX_VALUE) ? 1 : (int) expected);
		}

		void count() {
			this.delivered.incrementAndGet();
		}

		void received(long dueMillis) {
			long now = System.currentTimeMillis();
			long late = Math.max(0, now - dueMillis);
			this.lateness.record(TimeUnit.MILLISECONDS.toNanos(late));
			this.maxMillis.accumulateAndGet(late, Math::max);
			this.lastMillis = now;
			this.delivered.incrementAndGet();
			this.done.countDown();
		}

		/**
		 * Waits for the burst, measuring the work done for it from shortly before its due time: before that the
		 * consumers only wait.
		 */
		void await(long dueMillis, BenchmarkContext context, String library) throws InterruptedException {
			long before = dueMillis - 100 - System.currentTimeMillis();
			if (before > 0 && this.delivered.get() == 0) {
				TimeUnit.MILLISECONDS.sleep(before);
			}
			Work work = Work.start(context);
			long wait = Math.max(0, dueMillis - System.currentTimeMillis()) + 60_000;
			if (!this.done.await(wait, TimeUnit.MILLISECONDS)) {
				context.reportAnomaly(library + ": " + (this.expected - this.delivered.get()) + " of " + this.expected
						+ " burst messages not delivered a minute after their due time", null);
			}
			this.work = work.stop(context, this.delivered.get());
			rate(this.delivered.get(), TimeUnit.MILLISECONDS.toNanos(Math.max(1, this.lastMillis - dueMillis)));
		}

		void rate(long count, long nanos) {
			this.perSecond = count * 1e9 / Math.max(1, nanos);
		}

		double perSecond() {
			return this.perSecond;
		}

		/** @param what the library's size as printed: {@code batch 40}, {@code concurrency 8 prefetch 152} */
		String line(String scenario, String library, String what) {
			String work = (this.work != null) ? "  " + this.work : "";
			if (this.lateness.count() == 0) {
				return String.format("%s %-10s %-15s %10.0f deliveries/s%s", scenario, library, what, this.perSecond,
						work);
			}
			double[] p = this.lateness.percentilesMicros(50, 99);
			return String.format(
					"%s %-10s %-15s %10.0f deliveries/s  lateness p50 %7.1f ms  p99 %7.1f ms  max %6d ms%s", scenario,
					library, what, this.perSecond, p[0] / 1000, p[1] / 1000, this.maxMillis.get(), work);
		}

		Map<String, Object> toJson(int size) {
			Map<String, Object> json = new LinkedHashMap<>();
			json.put("size", size);
			json.put("delivered", this.delivered.get());
			json.put("deliveriesPerSecond", this.perSecond);
			if (this.work != null) {
				json.put("clientCpuMicrosPerMessage", this.work.cost().clientMicros());
				json.put("serverCpuMicrosPerMessage", this.work.cost().serverMicros());
				json.put("scriptCallsPerMessage", this.work.scripts());
				json.put("commandsPerMessage", this.work.commands());
			}
			if (this.lateness.count() > 0) {
				double[] p = this.lateness.percentilesMicros(50, 99);
				json.put("latenessP50Millis", p[0] / 1000);
				json.put("latenessP99Millis", p[1] / 1000);
				json.put("latenessMaxMillis", this.maxMillis.get());
			}
			return json;
		}

	}

	/**
	 * Processor time and server calls from a start: the calls counted by {@code INFO commandstats}, scripts
	 * ({@code EVALSHA}, {@code EVAL}, {@code FCALL}) on their own and every command together, the commands that
	 * scripts run included. Other clients of the server count too: the benchmark runs alone.
	 */
	private record Work(CpuMeter cpu, long scripts, long commands) {

		static Work start(BenchmarkContext context) {
			long[] calls = calls(context);
			return new Work(CpuMeter.start(context), calls[0], calls[1]);
		}

		@Nullable PerMessage stop(BenchmarkContext context, long messages) {
			if (messages == 0) {
				return null;
			}
			CpuMeter.Cost cost = this.cpu.stop(messages);
			long[] calls = calls(context);
			// The INFO calls that read the counters count as one each.
			return new PerMessage(cost, (calls[0] - this.scripts) / (double) messages,
					(calls[1] - this.commands - 2) / (double) messages);
		}

		private static long[] calls(BenchmarkContext context) {
			try (RedisConnection connection = context.connectionFactory().getConnection()) {
				Properties stats = connection.serverCommands().info("commandstats");
				long scripts = 0;
				long all = 0;
				if (stats != null) {
					for (String name : stats.stringPropertyNames()) {
						String value = stats.getProperty(name);
						int from = value.indexOf("calls=") + 6;
						long calls = Long.parseLong(value.substring(from, value.indexOf(',', from)));
						all += calls;
						if (name.equals("cmdstat_evalsha") || name.equals("cmdstat_eval")
								|| name.equals("cmdstat_fcall")) {
							scripts += calls;
						}
					}
				}
				return new long[] { scripts, all };
			}
		}

	}

	/**
	 * A drain's work per message.
	 *
	 * @param cost processor time per message, the benchmark's JVM and the server's
	 * @param scripts script calls per message
	 * @param commands commands per message, those scripts ran included
	 */
	private record PerMessage(CpuMeter.Cost cost, double scripts, double commands) {

		@Override
		public String toString() {
			return String.format("cpu-us/msg=%.1f+%.1f  scripts/msg=%.3f  commands/msg=%.1f", this.cost.clientMicros(),
					this.cost.serverMicros(), this.scripts, this.commands);
		}

	}

}

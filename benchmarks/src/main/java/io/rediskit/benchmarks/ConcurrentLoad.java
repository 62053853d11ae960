package io.rediskit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.rediskit.benchmarks.CpuMeter.Cost;

/**
 * Calls one operation in a loop on a fixed number of platform threads: through the warmup, through the
 * measured window, and then until every thread has finished the call it was in. From
 * {@link BenchmarkContext#load(String)}; each load runs once. A warmup that is not zero goes on after its time
 * while the JIT compiler is busy ({@link JitCompiler}), by at most 10 s.
 * <p>
 * Only calls that return while the window is open are counted, so calls that straddle either edge are
 * left out at both ends alike. A call that throws is not counted; failures are counted by exception type
 * (and cause type) and each type is reported once, with its first stack trace, when the run ends. Threads
 * still busy {@value #STOP_TIMEOUT_SECONDS} seconds after the window closed are reported with their stacks
 * and left behind as daemon threads: a lock that never comes back must not hang the benchmark.
 */
public final class ConcurrentLoad {

	private static final int STOP_TIMEOUT_SECONDS = 60;

	/** A slice of the warm-up's extension while the JIT compiler is busy. */
	private static final int SLICE_MILLIS = 500;

	/** Slices of extension, at most: 10 s. */
	private static final int MAX_SLICES = 20;

	private final String label;

	private final int threads;

	private final Duration warmup;

	private final Duration duration;

	private final BenchmarkContext context;

	private final AtomicBoolean started = new AtomicBoolean();

	private volatile Phase phase = Phase.WARMUP;

	ConcurrentLoad(String label, int threads, Duration warmup, Duration duration, BenchmarkContext context) {
		this.label = label;
		this.threads = threads;
		this.warmup = warmup;
		this.duration = duration;
		this.context = context;
	}

	/**
	 * Whether the measured window is open now, for operations that record more than their own count, such
	 * as latencies.
	 * @return {@code true} between the end of the warmup and the end of the window
	 */
	public boolean isMeasuring() {
		return this.phase == Phase.MEASURING;
	}

	/**
	 * Runs the load and waits for it to end.
	 * @param operation what each thread calls, over and over
	 * @return the calls counted in the window and what went wrong
	 * @throws InterruptedException if the calling thread is interrupted; the workers then stop after their
	 * current call
	 */
	public Outcome run(Operation operation) throws InterruptedException {
		if (!this.started.compareAndSet(false, true)) {
			throw new IllegalStateException("Load '" + this.label + "' has already run");
		}
		this.context.progress(this.label + ": warming up " + BenchmarkOptions.format(this.warmup) + ", measuring "
				+ BenchmarkOptions.format(this.duration) + " on " + this.threads + " threads");
		LongAdder completed = new LongAdder();
		Map<String, Failure> failures = new ConcurrentHashMap<>();
		CountDownLatch ready = new CountDownLatch(this.threads);
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> workers = new ArrayList<>(this.threads);
		for (int i = 0; i < this.threads; i++) {
			int index = i;
			Thread worker = new Thread(() -> work(index, operation, ready, go, completed, failures),
					"bench-" + this.label.replace(' ', '-') + "-" + i);
			worker.setDaemon(true);
			workers.add(worker);
			worker.start();
		}
		long start;
		CpuMeter cpu;
		try {
			// Thread start-up is not part of the warmup: every worker waits at the gate until all exist.
			ready.await();
			go.countDown();
			TimeUnit.NANOSECONDS.sleep(this.warmup.toNanos());
			if (!this.warmup.isZero()) {
				warmUntilCompiled();
			}
			cpu = CpuMeter.start(this.context);
			this.phase = Phase.MEASURING;
			start = System.nanoTime();
			TimeUnit.NANOSECONDS.sleep(this.duration.toNanos());
		}
		finally {
			this.phase = Phase.STOPPED;
			go.countDown();
		}
		long end = System.nanoTime();
		Cost cost = cpu.stop(Math.max(1, completed.sum()));
		this.context.recordCpu(this.label, cost);
		int hung = awaitWorkers(workers);
		long errors = 0;
		for (Map.Entry<String, Failure> entry : failures.entrySet()) {
			long count = entry.getValue().count.sum();
			errors += count;
			this.context.reportAnomaly(this.label + ": " + count + " calls failed with " + entry.getKey(),
					entry.getValue().first);
		}
		return new Outcome(completed.sum(), Duration.ofNanos(end - start), errors, hung, cost);
	}

	/**
	 * Goes on warming up, in slices of {@value #SLICE_MILLIS} ms, while the JIT compiler spent more than
	 * {@value JitCompiler#QUIET_PERCENT}% of the last slice compiling, at most {@value #MAX_SLICES} slices: the first
	 * scenario of a run, whose code the compiler meets first, otherwise counts the compiler's processor time in its
	 * window (a read lock at 1.27 of its floor's client time as a run's first scenario, 1.04 after another benchmark
	 * had run, 2026-11-29).
	 */
	private void warmUntilCompiled() throws InterruptedException {
		int slices = 0;
		while (slices < MAX_SLICES) {
			JitCompiler compiler = JitCompiler.measure();
			TimeUnit.MILLISECONDS.sleep(SLICE_MILLIS);
			slices++;
			if (compiler.compiled()) {
				break;
			}
		}
		if (slices > 1) {
			this.context.progress(this.label + ": warmed up " + (slices * SLICE_MILLIS) + " ms longer, until the "
					+ "JIT compiler was quiet" + ((slices == MAX_SLICES) ? " or that limit" : ""));
		}
	}

	private void work(int index, Operation operation, CountDownLatch ready, CountDownLatch go, LongAdder completed,
			Map<String, Failure> failures) {
		ready.countDown();
		try {
			go.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		while (this.phase != Phase.STOPPED) {
			try {
				operation.run(index);
				if (this.phase == Phase.MEASURING) {
					completed.increment();
				}
			}
			catch (InterruptedException ex) {
				// Nobody here interrupts workers: whoever did wants them gone.
				Thread.currentThread().interrupt();
				return;
			}
			catch (Exception ex) {
				failures.computeIfAbsent(failureType(ex), (type) -> new Failure(ex)).count.increment();
			}
		}
	}

	private int awaitWorkers(List<Thread> workers) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_TIMEOUT_SECONDS);
		List<Thread> hung = new ArrayList<>();
		for (Thread worker : workers) {
			long remaining = deadline - System.nanoTime();
			if (remaining > 0) {
				TimeUnit.NANOSECONDS.timedJoin(worker, remaining);
			}
			if (worker.isAlive()) {
				hung.add(worker);
			}
		}
		if (!hung.isEmpty()) {
			Thread first = hung.get(0);
			Throwable stack = new Throwable("Stack of " + first.getName() + " (the first of them)");
			stack.setStackTrace(first.getStackTrace());
			this.context.reportAnomaly(this.label + ": " + hung.size() + " of " + workers.size()
					+ " threads did not finish their last call within " + STOP_TIMEOUT_SECONDS
					+ "s of the end of the window", stack);
		}
		return hung.size();
	}

	/** Groups failures by type rather than message: messages carry names and numbers that vary per call. */
	private static String failureType(Throwable ex) {
		Throwable cause = ex.getCause();
		return (cause != null && cause != ex) ? ex.getClass().getName() + " caused by " + cause.getClass().getName()
				: ex.getClass().getName();
	}

	private enum Phase {

		WARMUP, MEASURING, STOPPED

	}

	private static final class Failure {

		final Throwable first;

		final LongAdder count = new LongAdder();

		Failure(Throwable first) {
			this.first = first;
		}

	}

	/**
	 * One call of the measured operation.
	 */
	@FunctionalInterface
	public interface Operation {

		/**
		 * Makes one call.
		 * @param thread the index of the calling worker, from {@code 0} to the thread count minus one
		 * @throws Exception if the call fails; counted and reported, and the worker carries on
		 */
		void run(int thread) throws Exception;

	}

	/**
	 * What one load measured.
	 *
	 * @param operations calls that returned while the window was open
	 * @param measured how long the window was open
	 * @param errors calls that threw, in the warmup and the window
	 * @param hungThreads workers that had not finished their last call when the run gave up waiting
	 * @param cpu the processor time per counted call over the window, of this JVM and of the context's server
	 * (see {@link CpuMeter}): a figure the machine's other load moves far less than calls per second
	 */
	public record Outcome(long operations, Duration measured, long errors, int hungThreads, Cost cpu) {

		/** @return calls per second in the window */
		public double opsPerSecond() {
			return this.operations / (this.measured.toNanos() / 1e9);
		}

	}

}

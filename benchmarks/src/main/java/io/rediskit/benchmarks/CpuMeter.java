package io.rediskit.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Properties;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Measures the processor time this JVM and the {@code redis-server} spend while a load runs, to divide by the
 * calls the load made.
 * <p>
 * On a machine whose cores the benchmark saturates, calls per second follow processor time per call; unlike
 * calls per second, processor time per call hardly moves when the hypervisor or another process takes cores
 * away for a while, so it tells two libraries apart where throughput rounds scatter. The JVM's time includes
 * every thread (the callers, the clients' I/O threads, the JIT compiler and the garbage collector); the
 * server's is its {@code used_cpu_user} plus {@code used_cpu_sys}. {@link ConcurrentLoad} measures every load's
 * window with it; {@link CpuFigures} reports the rounds.
 */
public final class CpuMeter {

	private final BenchmarkContext context;

	private final long clientNanos;

	private final double serverSeconds;

	private CpuMeter(BenchmarkContext context, long clientNanos, double serverSeconds) {
		this.context = context;
		this.clientNanos = clientNanos;
		this.serverSeconds = serverSeconds;
	}

	/**
	 * Reads both clocks.
	 * @param context the server
	 * @return a meter running from now
	 */
	public static CpuMeter start(BenchmarkContext context) {
		return new CpuMeter(context, clientNanos(), serverSeconds(context));
	}

	/**
	 * Reads both clocks again.
	 * @param calls the calls made since {@link #start(BenchmarkContext)}
	 * @return the processor time per call
	 */
	public Cost stop(long calls) {
		long client = clientNanos() - this.clientNanos;
		double server = serverSeconds(this.context) - this.serverSeconds;
		return new Cost(client / 1000.0 / calls, server * 1e6 / calls);
	}

	private static long clientNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	private static double serverSeconds(BenchmarkContext context) {
		try (RedisConnection connection = context.connectionFactory().getConnection()) {
			Properties cpu = connection.serverCommands().info("cpu");
			if (cpu == null) {
				throw new IllegalStateException("INFO cpu returned nothing");
			}
			return Double.parseDouble(cpu.getProperty("used_cpu_user", "0"))
					+ Double.parseDouble(cpu.getProperty("used_cpu_sys", "0"));
		}
	}

	/**
	 * Processor time per call.
	 *
	 * @param clientMicros this JVM's, in microseconds
	 * @param serverMicros the server's, in microseconds
	 */
	public record Cost(double clientMicros, double serverMicros) {

		/** @return both together */
		public double totalMicros() {
			return this.clientMicros + this.serverMicros;
		}

	}

}

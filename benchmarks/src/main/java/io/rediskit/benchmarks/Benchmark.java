package io.rediskit.benchmarks;

/**
 * One area measured for redis-kit and for Redisson, run as a subcommand of {@link BenchmarkMain} such as
 * {@code lock}.
 * <p>
 * An implementation runs every scenario of its area for both libraries against the server of the
 * {@link BenchmarkContext}, prints one line per scenario and writes {@code <name>.json} and
 * {@code <name>.png} to the output directory. Errors and broken guarantees seen while measuring are reported
 * to {@link BenchmarkContext#reportAnomaly(String, Throwable)} rather than thrown, so that one bad scenario
 * still leaves the others' numbers.
 */
public interface Benchmark {

	/** @return the subcommand and file name, such as {@code lock} */
	String name();

	/**
	 * Runs every scenario and writes the results.
	 * @param context the server, the clients and the options
	 * @throws Exception if the benchmark cannot run or its results cannot be written
	 */
	void run(BenchmarkContext context) throws Exception;

}

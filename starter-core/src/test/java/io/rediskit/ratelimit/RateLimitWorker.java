package io.rediskit.ratelimit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rediskit.ratelimit.RateLimitLoad.Granted;
import io.rediskit.support.KeyNaming;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A second JVM for the rate-limit tests, started with {@link ProcessBuilder} (optionally under
 * {@code faketime}, to skew its clock). Arguments: {@code <port> <algorithm> <limit> <period ms> <burst or 0>
 * <threads> <duration ms, or calls=n for n calls in one thread> <limiter> <key> <max permits>}. It prints {@code clock <its System.currentTimeMillis()>}
 * and {@code ready}, waits for a line on standard input, runs the load, then prints one
 * {@code a <server µs> <permits> <limit>} line per admission and {@code done}.
 */
public final class RateLimitWorker {

	private RateLimitWorker() {
	}

	public static void main(String[] args) throws Exception {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(args[0])),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.valueOf(args[1]), Long.parseLong(args[2]),
				Duration.ofMillis(Long.parseLong(args[3])));
		if (Long.parseLong(args[4]) > 0) {
			spec = spec.withBurst(Long.parseLong(args[4]));
		}
		RateLimiterRegistry registry = new RateLimiterRegistry(connections, KeyNaming.defaults(), RateLimitListener.NONE);
		RedisRateLimiter limiter = RateLimitTesting.internal(registry.create(args[7], spec));
		// Load the script and open the connection before the start signal, so both JVMs start hitting together.
		limiter.reset(args[8] + ":warm-up");
		PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
		out.println("clock " + System.currentTimeMillis());
		out.println("ready");
		out.flush();
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		List<Granted> admitted;
		if (args[6].startsWith("calls=")) {
			admitted = new ArrayList<>();
			for (int i = Integer.parseInt(args[6].substring("calls=".length())); i > 0; i--) {
				RateLimitScripts.Evaluation evaluation = limiter.evaluate(args[8], 1, null);
				if (evaluation.decision().allowed()) {
					admitted.add(new Granted(evaluation.serverMicros(), 1, evaluation.spec()));
				}
			}
		}
		else {
			admitted = RateLimitLoad.run(limiter, args[8], Integer.parseInt(args[5]),
					TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6])), Integer.parseInt(args[9]));
		}
		for (Granted granted : admitted) {
			out.println(granted.toLine());
		}
		out.println("done");
		out.flush();
		connections.destroy();
	}

	/** A started worker JVM: its clock, and its admissions once it is done. */
	static final class Handle {

		final Process process;

		final BufferedReader output;

		final long clockMillis;

		Handle(Process process) throws IOException {
			this.process = process;
			this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
			String clock = expectLine("clock ");
			this.clockMillis = Long.parseLong(clock.substring("clock ".length()));
			expectLine("ready");
		}

		void go() throws IOException {
			this.process.getOutputStream().write('\n');
			this.process.getOutputStream().flush();
		}

		List<Granted> admissions(RateLimitSpec spec) throws IOException, InterruptedException {
			List<Granted> admitted = new ArrayList<>();
			for (String line = this.output.readLine(); !"done".equals(line); line = this.output.readLine()) {
				if (line == null) {
					throw new AssertionError("The worker JVM ended without reporting; exit " + this.process.waitFor());
				}
				String[] parts = line.split(" ");
				admitted.add(new Granted(Long.parseLong(parts[1]), Integer.parseInt(parts[2]), spec));
			}
			this.process.waitFor(30, TimeUnit.SECONDS);
			return admitted;
		}

		private String expectLine(String prefix) throws IOException {
			String line = this.output.readLine();
			if (line == null || !line.startsWith(prefix)) {
				throw new AssertionError("The worker JVM said '" + line + "' instead of '" + prefix + "...'");
			}
			return line;
		}

	}

	/**
	 * Starts a worker JVM with the test class path.
	 * @param skewSeconds how far its clock is set ahead with {@code faketime}; 0 for the real clock
	 */
	static Handle start(int skewSeconds, String... args) throws IOException {
		List<String> command = new ArrayList<>();
		if (skewSeconds != 0) {
			command.addAll(List.of("faketime", "-f", ((skewSeconds > 0) ? "+" : "") + skewSeconds + "s"));
		}
		command.addAll(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx256m", "-cp",
				System.getProperty("java.class.path"), RateLimitWorker.class.getName()));
		command.addAll(List.of(args));
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
		// Only wall-clock time is skewed; the JVM's timers keep working on the real monotonic clock.
		builder.environment().put("DONT_FAKE_MONOTONIC", "1");
		builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
		return new Handle(builder.start());
	}

}

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
import io.rediskit.testsupport.WorkerLifetime;
import io.rediskit.testsupport.WorkerJvm;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A second JVM for the rate-limit tests, started with {@link ProcessBuilder} (optionally under
 * {@code faketime}, to skew its clock). Arguments: {@code <port> <algorithm> <limit> <period ms> <burst or 0>
 * <threads> <duration ms> <limiter> <key> <max permits>}, or {@code sequential <port>} for {@link #sequential}. It prints {@code clock <its System.currentTimeMillis()>}
 * and {@code ready}, waits for a line on standard input, runs the load, then prints one
 * {@code a <server µs> <permits> <limit>} line per admission and {@code done}.
 */
public final class RateLimitWorker {

	private RateLimitWorker() {
	}

	public static void main(String[] args) throws Exception {
		// Long enough for the longest run that starts one; a hung or orphaned worker never outlives the build.
		WorkerLifetime.haltWhenOverdueOrOrphaned("RateLimitWorker", Duration.ofMinutes(10));
		if (args[0].equals("sequential")) {
			sequential(Integer.parseInt(args[1]));
			return;
		}
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
		List<Granted> admitted = RateLimitLoad.run(limiter, args[8], Integer.parseInt(args[5]),
				TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6])), Integer.parseInt(args[9]));
		for (Granted granted : admitted) {
			out.println(granted.toLine());
		}
		out.println("done");
		out.flush();
		connections.destroy();
	}

	/**
	 * Serves requests from standard input, one per line: {@code <algorithm> <limit> <period ms> <limiter> <key>
	 * <calls>}. Each makes that many one-permit calls in one thread and answers like the load does.
	 */
	private static void sequential(int port) throws Exception {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		connections.afterPropertiesSet();
		connections.start();
		RateLimiterRegistry registry = new RateLimiterRegistry(connections, KeyNaming.defaults(), RateLimitListener.NONE);
		PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
		out.println("clock " + System.currentTimeMillis());
		out.println("ready");
		out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
			String[] request = line.split(" ");
			RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.valueOf(request[0]), Long.parseLong(request[1]),
					Duration.ofMillis(Long.parseLong(request[2])));
			RedisRateLimiter limiter = RateLimitTesting.internal(registry.create(request[3], spec));
			for (int i = Integer.parseInt(request[5]); i > 0; i--) {
				RateLimitScripts.Evaluation evaluation = limiter.evaluate(request[4], 1, null);
				if (evaluation.decision().allowed()) {
					out.println(new Granted(evaluation.serverMicros(), 1, spec).toLine());
				}
			}
			out.println("done");
			out.flush();
		}
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
			send("");
		}

		void send(String line) throws IOException {
			this.process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
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
return new Handle(WorkerJvm.of(RateLimitWorker.class, args).clockSkew(Duration.ofSeconds(skewSeconds)).start());
	}

}

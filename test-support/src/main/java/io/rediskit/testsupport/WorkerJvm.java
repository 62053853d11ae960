package io.rediskit.testsupport;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Starts a worker JVM on the test's own class path: the second, third or killed process of a multi-JVM test. One
 * place for how a worker is launched, so every worker gets the same small footprint: a worker does Redis calls, not
 * long computations, and the 2-core CI machine runs it beside the test JVM and the servers, so it runs with the
 * client compiler only, the serial collector and a small heap (fewer threads, far less compilation at start). Its
 * standard error goes to the test's; its standard output is the test's to read.
 * <p>
 * A worker given a clock skew runs with libfaketime preloaded (the library of {@code /usr/bin/faketime}), which
 * shifts only the wall clock: the JVM's timers keep the real monotonic clock. A worker should call
 * {@link WorkerLifetime#haltWhenOverdueOrOrphaned} first in its {@code main}; {@link #lifetime(Duration)} sets the
 * bound it then reads.
 */
public final class WorkerJvm {

	private final Class<?> main;

	private final List<String> arguments;

	private Duration skew = Duration.ZERO;

	private String heap = "256m";

	private @Nullable Duration lifetime;

	private WorkerJvm(Class<?> main, List<String> arguments) {
		this.main = main;
		this.arguments = arguments;
	}

	/**
	 * A worker that runs the {@code main} method of a class on the test class path.
	 * @param main the worker's class
	 * @param arguments its arguments
	 * @return the worker, to start
	 */
	public static WorkerJvm of(Class<?> main, String... arguments) {
		return new WorkerJvm(main, List.of(arguments));
	}

	/**
	 * Sets the worker's wall clock this far ahead (or behind, if negative) with {@code faketime}.
	 * @param skew the skew; zero for the real clock
	 * @return this worker
	 */
	public WorkerJvm clockSkew(Duration skew) {
		this.skew = skew;
		return this;
	}

	/**
	 * Overrides the lifetime the worker's {@link WorkerLifetime} guard enforces.
	 * @param lifetime the longest the worker may live
	 * @return this worker
	 */
	public WorkerJvm lifetime(Duration lifetime) {
		this.lifetime = lifetime;
		return this;
	}

	/**
	 * Sets the worker's maximum heap ({@code 256m} unless set).
	 * @param heap a {@code -Xmx} value such as {@code 128m}
	 * @return this worker
	 */
	public WorkerJvm heap(String heap) {
		this.heap = heap;
		return this;
	}

	/** @return the command line that starts the worker */
	public List<String> command() {
		List<String> command = new ArrayList<>();
		command.addAll(List.of(System.getProperty("java.home") + "/bin/java", "-Xmx" + this.heap,
				"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
		if (this.lifetime != null) {
			command.add("-D" + WorkerLifetime.LIFETIME_PROPERTY + "=" + this.lifetime.toMillis());
		}
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), this.main.getName()));
		command.addAll(this.arguments);
		return command;
	}

	/**
	 * Starts the worker.
	 * @return its process
	 * @throws IOException if it cannot be started
	 */
	public Process start() throws IOException {
		ProcessBuilder builder = new ProcessBuilder(command()).redirectError(ProcessBuilder.Redirect.INHERIT);
		if (!this.skew.isZero()) {
			// The library the faketime command preloads, without that command: it forks the JVM as its child and
			// keeps a named semaphore per process id in /dev/shm, so a worker killed with destroyForcibly() left its
			// JVM running on (until WorkerLifetime halted it) and its semaphore behind, and a later faketime given
			// that process id again failed to start ("sem_open: File exists", seen once in CI-like runs with 150
			// left on the machine). $LIB is the dynamic linker's own token for the library directory, as the
			// command itself uses it.
			builder.environment().put("LD_PRELOAD", "/usr/$LIB/faketime/libfaketime.so.1");
			builder.environment().put("FAKETIME", String.format(Locale.ROOT, "%+.3fs", this.skew.toMillis() / 1000.0));
			// Only wall-clock time is skewed; the JVM's timers keep working on the real monotonic clock.
			builder.environment().put("DONT_FAKE_MONOTONIC", "1");
			builder.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
			// libfaketime 0.9.10's "monotonic fix" of pthread_cond_timedwait, on by default on this glibc, returns
			// every timed wait of the JVM at once (Object.wait(500) after 0.01 ms): each sleep, park and poll timeout
			// then spins until its deadline, a worker burns a core, and 200 sleeps of 1 ms take 15 s instead of 0.4.
			// Off, timed waits last their time and the wall clock is still skewed (LockSupport.parkUntil on it too).
			builder.environment().put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
		}
		return builder.start();
	}

}

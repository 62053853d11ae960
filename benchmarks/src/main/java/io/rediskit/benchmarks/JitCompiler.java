package io.rediskit.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

import org.jspecify.annotations.Nullable;

/**
 * How busy the JVM's JIT compiler was over a stretch of time: the one measure every warm-up waits on. Code that is
 * still being compiled runs slower and, worse for a figure of processor time per operation, the compiler's own
 * threads count in this JVM's processor time: a measured window that falls while the compiler is busy reports the
 * compiler's work as the library's (26 µs per message against 14.5 once compiled, in a drain of 2026-11-29; the
 * first scenario of a run read up to 1.3 times its floor's client time while later ones read 1.0).
 * <p>
 * A stretch counts as <b>compiled</b> when the compiler spent at most {@value #QUIET_PERCENT}% of its elapsed time
 * compiling (as the JVM reports its accumulated compilation time). A JVM that does not report it counts every
 * stretch as compiled, so that no warm-up waits forever.
 */
public final class JitCompiler {

	/** Share of a stretch's time, in percent, the compiler may spend compiling for the stretch to count as compiled. */
	public static final int QUIET_PERCENT = 2;

	private static final @Nullable CompilationMXBean COMPILER = compiler();

	private final long compiledAtStart;

	private final long startNanos;

	private JitCompiler() {
		this.compiledAtStart = totalCompiledMillis();
		this.startNanos = System.nanoTime();
	}

	/** @return a stretch starting now */
	public static JitCompiler measure() {
		return new JitCompiler();
	}

	/** @return whether this JVM reports the compiler's time; without it every stretch counts as compiled */
	public static boolean isMeasurable() {
		return COMPILER != null;
	}

	/** @return milliseconds the compiler spent compiling since the stretch started */
	public long compiledMillis() {
		return totalCompiledMillis() - this.compiledAtStart;
	}

	/** @return milliseconds since the stretch started, at least 1 */
	public long elapsedMillis() {
		return Math.max(1, (System.nanoTime() - this.startNanos) / 1_000_000);
	}

	/** @return whether the compiler spent at most {@value #QUIET_PERCENT}% of the stretch compiling */
	public boolean compiled() {
		return compiledMillis() * 100 <= elapsedMillis() * QUIET_PERCENT;
	}

	private static long totalCompiledMillis() {
		return (COMPILER != null) ? COMPILER.getTotalCompilationTime() : 0;
	}

	private static @Nullable CompilationMXBean compiler() {
		CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
		return (compiler != null && compiler.isCompilationTimeMonitoringSupported()) ? compiler : null;
	}

}

package io.rediskit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Finds a {@code redis-server} executable, in this order:
 * <ol>
 * <li>the {@code REDIS_SERVER_BINARY} environment variable: a path, or {@value #BUNDLED} to force the bundled
 * binary;</li>
 * <li>{@code redis-server} on the {@code PATH}, if it is Redis {@value #BUNDLED_MAJOR} or newer (an older one is
 * passed over, so that no test fails for a feature the machine's server lacks);</li>
 * <li>the binary bundled in the {@code org.signal:embedded-redis} jar (Redis 7.0.15, statically linked, for Linux
 * and macOS on x86-64 and ARM64), extracted once per JVM. Nothing but the JDK and Maven is needed.</li>
 * </ol>
 * A test that needs a newer server than the one found calls {@link #assumeAtLeast(int, int, String)}, which skips
 * it with a message naming what it needs.
 *
 * @param path the executable
 * @param version the server version it reports, such as {@code 7.0.15}
 * @param source where it came from, for log messages
 */
public record RedisServerBinary(Path path, String version, String source) {

	/** The value of {@code REDIS_SERVER_BINARY} that forces the bundled binary. */
	public static final String BUNDLED = "bundled";

	/** The major version of the bundled binary; an older {@code redis-server} on the {@code PATH} is passed over. */
	public static final int BUNDLED_MAJOR = 7;

	private static final String BUNDLED_VERSION = "7.0.15";

	private static final String BUNDLED_SOURCE = "bundled (org.signal:embedded-redis jar)";

	private static final Pattern VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");

	private static volatile RedisServerBinary located;

	/**
	 * Locates the binary, once per JVM.
	 * @return the binary to start servers with
	 * @throws IllegalStateException if no binary exists for this platform
	 */
	public static RedisServerBinary locate() {
		RedisServerBinary binary = located;
		if (binary == null) {
			synchronized (RedisServerBinary.class) {
				binary = located;
				if (binary == null) {
					binary = find();
					located = binary;
				}
			}
		}
		return binary;
	}

	/**
	 * Whether the server version is at least the given major version.
	 * @param major the major version, such as 7
	 * @return whether this binary is that version or newer
	 */
	public boolean atLeast(int major) {
		return atLeast(major, 0);
	}

	/**
	 * Whether the server version is at least the given version.
	 * @param major the major version, such as 7
	 * @param minor the minor version, such as 2
	 * @return whether this binary is that version or newer
	 */
	public boolean atLeast(int major, int minor) {
		String[] parts = this.version.split("\\.");
		int ownMajor = Integer.parseInt(parts[0]);
		return ownMajor > major || (ownMajor == major && Integer.parseInt(parts[1]) >= minor);
	}

	/**
	 * Skips the calling test (JUnit's assumption) unless this machine's binary is at least the given version.
	 * Outside a test (a benchmark), fails with the same message instead.
	 * @param major the major version needed
	 * @param minor the minor version needed
	 * @param feature what the test needs that version for, such as {@code "cluster-port"}
	 */
	public static void assumeAtLeast(int major, int minor, String feature) {
		String missing = locate().missing(major, minor, feature);
		if (missing != null) {
			throw skipOrFail(missing);
		}
	}

	/** Why this binary cannot serve a test that needs the given version, or {@code null} if it can. */
	@Nullable String missing(int major, int minor, String feature) {
		if (atLeast(major, minor)) {
			return null;
		}
		return "Needs Redis " + major + "." + minor + " or newer for " + feature + "; found " + this.version + " ("
				+ this.source + " " + this.path + "). Unset REDIS_SERVER_BINARY or set it to '" + BUNDLED
				+ "' to use the bundled Redis " + BUNDLED_VERSION + ".";
	}

	private static RuntimeException skipOrFail(String message) {
		try {
			Class<?> aborted = Class.forName("org.opentest4j.TestAbortedException");
			return (RuntimeException) aborted.getConstructor(String.class).newInstance(message);
		}
		catch (ReflectiveOperationException | LinkageError ex) {
			return new IllegalStateException(message);
		}
	}

	private static RedisServerBinary find() {
		return find(System.getenv());
	}

	/** The binary the given environment selects. */
	static RedisServerBinary find(Map<String, String> environment) {
		String configured = environment.get("REDIS_SERVER_BINARY");
		if (configured != null && !configured.isBlank()) {
			return BUNDLED.equals(configured.strip()) ? withVersion(extractBundled(), BUNDLED_SOURCE)
					: withVersion(Path.of(configured), "REDIS_SERVER_BINARY");
		}
		String pathVariable = environment.get("PATH");
		if (pathVariable != null) {
			for (String dir : pathVariable.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, "redis-server");
				if (Files.isExecutable(candidate)) {
					RedisServerBinary onPath = withVersion(candidate, "PATH");
					if (onPath.atLeast(BUNDLED_MAJOR)) {
						return onPath;
					}
					System.err.println("[redis-kit test-support] " + candidate + " is Redis " + onPath.version()
							+ ", older than " + BUNDLED_MAJOR + ": using the bundled Redis " + BUNDLED_VERSION);
					break;
				}
			}
		}
		return withVersion(extractBundled(), BUNDLED_SOURCE);
	}

	private static Path extractBundled() {
		String resource = bundledResourceName();
		try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and no " + resource
						+ " in the org.signal:embedded-redis jar: install redis-server or set REDIS_SERVER_BINARY");
			}
			Path dir = Files.createTempDirectory("redis-kit-redis-server");
			Path target = dir.resolve("redis-server");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			if (!target.toFile().setExecutable(true)) {
				throw new IllegalStateException("Cannot make " + target + " executable");
			}
			dir.toFile().deleteOnExit();
			target.toFile().deleteOnExit();
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot extract redis-server from the org.signal:embedded-redis jar", ex);
		}
	}

	private static String bundledResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		String cpu = (arch.contains("aarch64") || arch.contains("arm64")) ? "arm64" : "amd64";
		if (os.contains("mac")) {
			return "redis-server-" + BUNDLED_VERSION + "-darwin-" + cpu;
		}
		if (os.contains("linux")) {
			return "redis-server-" + BUNDLED_VERSION + "-linux-" + cpu;
		}
		throw new IllegalStateException("No bundled redis-server for " + os + "/" + arch
				+ ": install redis-server or set REDIS_SERVER_BINARY");
	}

	private static RedisServerBinary withVersion(Path binary, String source) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(binary + " --version did not answer");
			}
			Matcher matcher = VERSION.matcher(output);
			if (!matcher.find()) {
				throw new IllegalStateException(binary + " --version printed no version: " + output.strip());
			}
			return new RedisServerBinary(binary, matcher.group(1), source);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + binary, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while asking " + binary + " for its version", ex);
		}
	}

}

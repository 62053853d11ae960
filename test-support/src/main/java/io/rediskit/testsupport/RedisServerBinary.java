package io.rediskit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The server every test of a JVM starts: one engine, Redis or Valkey, chosen once per JVM so that every suite,
 * standalone, Cluster and Sentinel, runs on it (to run the contract suites on another engine, run them again in a
 * JVM that selects it; {@code .ci/run} does so for Valkey). The engine is {@code redis} unless the system property
 * {@value #ENGINE_PROPERTY} or the environment variable {@value #ENGINE_VARIABLE} says {@code valkey}, or only
 * {@code VALKEY_SERVER_BINARY} is set. Its executable is found in this order:
 * <ul>
 * <li>Redis: the {@code REDIS_SERVER_BINARY} environment variable (a path, or {@value #BUNDLED} to force the bundled
 * binary); else {@code redis-server} on the {@code PATH}, if it is Redis {@value #BUNDLED_MAJOR} or newer (an older
 * one is passed over, so that no test fails for a feature the machine's server lacks); else the binary bundled in
 * the {@code org.signal:embedded-redis} jar (Redis 7.0.15, statically linked, for Linux and macOS on x86-64 and
 * ARM64), extracted once per JVM. Nothing but the JDK and Maven is needed.</li>
 * <li>Valkey: the {@code VALKEY_SERVER_BINARY} environment variable (a path); else {@code valkey-server} on the
 * {@code PATH}; else the run fails, naming what to install. Nothing is bundled.</li>
 * </ul>
 * The engine and version are what the executable's {@code --version} reports ({@code Valkey server v=8.0.1}), not
 * what selected it: a Valkey named by {@code REDIS_SERVER_BINARY} is reported as Valkey. Sentinels run from the
 * engine's own Sentinel executable ({@code valkey-sentinel}, {@code redis-sentinel}) where it sits beside the
 * server, else from the server with {@code --sentinel} ({@link #sentinelPath()}).
 * <p>
 * A test that needs a newer server than the one found calls {@link #assumeAtLeast(int, int, String)}, which skips
 * it with a message naming what it needs. Versions compare as the Redis version whose commands the server offers
 * ({@link #redisVersion()}): Valkey, forked from Redis 7.2.4, offers Redis 7.2's.
 *
 * @param path the executable
 * @param engine the server it is
 * @param version the version it reports, such as {@code 7.0.15} or {@code 8.0.1}
 * @param source where it came from, for log messages
 */
public record RedisServerBinary(Path path, Engine engine, String version, String source) {

	/** The value of {@code REDIS_SERVER_BINARY} that forces the bundled binary. */
	public static final String BUNDLED = "bundled";

	/** The major version of the bundled binary; an older {@code redis-server} on the {@code PATH} is passed over. */
	public static final int BUNDLED_MAJOR = 7;

	/** The system property that selects the engine of a test JVM: {@code redis} or {@code valkey}. */
	public static final String ENGINE_PROPERTY = "rediskit.engine";

	/** The environment variable that selects the engine when {@value #ENGINE_PROPERTY} is not set. */
	public static final String ENGINE_VARIABLE = "REDIS_KIT_ENGINE";

	private static final String BUNDLED_VERSION = "7.0.15";

	private static final String BUNDLED_SOURCE = "bundled (org.signal:embedded-redis jar)";

	/**
	 * The Redis version whose commands every Valkey release so far offers: Valkey forked from Redis 7.2.4 and reports
	 * {@code redis_version:7.2.4} in {@code INFO}; Redis 7.4's and 8's additions (hash-field expiration, Bloom
	 * filters in core) are not Valkey 8.0's.
	 */
	private static final String VALKEY_REDIS_VERSION = "7.2.4";

	private static final Pattern VERSION = Pattern.compile("(Redis|Valkey) server v=(\\d+\\.\\d+\\.\\d+)");

	private static volatile @Nullable RedisServerBinary located;

	/** A server engine: its name and the names of its executables. */
	public enum Engine {

		/** Redis. */
		REDIS("Redis", "redis-server", "redis-sentinel"),

		/** Valkey, the Linux Foundation's fork of Redis 7.2.4. */
		VALKEY("Valkey", "valkey-server", "valkey-sentinel");

		private final String displayName;

		private final String serverExecutable;

		private final String sentinelExecutable;

		Engine(String displayName, String serverExecutable, String sentinelExecutable) {
			this.displayName = displayName;
			this.serverExecutable = serverExecutable;
			this.sentinelExecutable = sentinelExecutable;
		}

		/** @return the name {@code --version} reports and reports show, such as {@code Valkey} */
		public String displayName() {
			return this.displayName;
		}

		/** @return the server's executable, such as {@code valkey-server} */
		public String serverExecutable() {
			return this.serverExecutable;
		}

		/** @return the Sentinel's executable, such as {@code valkey-sentinel} */
		public String sentinelExecutable() {
			return this.sentinelExecutable;
		}

		static Engine named(String name) {
			for (Engine engine : values()) {
				if (engine.name().equalsIgnoreCase(name.strip())) {
					return engine;
				}
			}
			throw new IllegalStateException("Unknown engine '" + name + "' (" + ENGINE_PROPERTY + " or " + ENGINE_VARIABLE
					+ "): use redis or valkey");
		}

	}

	/**
	 * Locates the binary, once per JVM, and says on standard error which it is (test reports keep that output).
	 * @return the binary to start servers with
	 * @throws IllegalStateException if no binary exists for this platform, or the selected engine is not installed
	 */
	public static RedisServerBinary locate() {
		RedisServerBinary binary = located;
		if (binary == null) {
			synchronized (RedisServerBinary.class) {
				binary = located;
				if (binary == null) {
					binary = find();
					System.err.println("[redis-kit test-support] servers: " + binary.describe());
					located = binary;
				}
			}
		}
		return binary;
	}

	/** @return the binary this JVM's servers run, or {@code null} before the first server started */
	static @Nullable RedisServerBinary located() {
		return located;
	}

	/** @return the name and version, such as {@code Valkey 8.0.1} */
	public String nameAndVersion() {
		return this.engine.displayName() + " " + this.version;
	}

	/** @return the name, version, source and path, for messages */
	public String describe() {
		return nameAndVersion() + " (" + this.source + " " + this.path + ")";
	}

	/**
	 * @return the Redis version whose commands this server offers: its own version for Redis, {@code 7.2.4} for
	 * Valkey
	 */
	public String redisVersion() {
		return (this.engine == Engine.VALKEY) ? VALKEY_REDIS_VERSION : this.version;
	}

	/**
	 * @return the executable a Sentinel runs: the engine's Sentinel executable beside the server, such as
	 * {@code /usr/bin/valkey-sentinel}, else the server itself (started with {@code --sentinel})
	 */
	public Path sentinelPath() {
		Path directory = this.path.toAbsolutePath().getParent();
		if (directory != null) {
			Path sentinel = directory.resolve(this.engine.sentinelExecutable());
			if (Files.isExecutable(sentinel)) {
				return sentinel;
			}
		}
		return this.path;
	}

	/**
	 * Whether the server offers the commands of at least the given Redis major version ({@link #redisVersion()}).
	 * @param major the major version, such as 7
	 * @return whether this binary is that version or newer
	 */
	public boolean atLeast(int major) {
		return atLeast(major, 0);
	}

	/**
	 * Whether the server offers the commands of at least the given Redis version ({@link #redisVersion()}).
	 * @param major the major version, such as 7
	 * @param minor the minor version, such as 2
	 * @return whether this binary is that version or newer
	 */
	public boolean atLeast(int major, int minor) {
		String[] parts = redisVersion().split("\\.");
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

	/**
	 * Skips the calling test (JUnit's assumption) unless the servers are of the given engine: for a test of what
	 * one engine does differently.
	 * @param engine the engine needed
	 * @param why what the test needs it for
	 */
	public static void assumeEngine(Engine engine, String why) {
		RedisServerBinary binary = locate();
		if (binary.engine() != engine) {
			throw skipOrFail("Needs " + engine.displayName() + " for " + why + "; found " + binary.describe() + ".");
		}
	}

	/** Why this binary cannot serve a test that needs the given version, or {@code null} if it can. */
	@Nullable String missing(int major, int minor, String feature) {
		if (atLeast(major, minor)) {
			return null;
		}
		String offers = (this.engine == Engine.REDIS) ? "" : ", which offers Redis " + redisVersion() + "'s commands";
		return "Needs Redis " + major + "." + minor + " or newer for " + feature + "; found " + describe() + offers
				+ ". Unset REDIS_SERVER_BINARY or set it to '" + BUNDLED + "' to use the bundled Redis " + BUNDLED_VERSION
				+ ".";
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
		Map<String, String> environment = new HashMap<>(System.getenv());
		String engine = System.getProperty(ENGINE_PROPERTY);
		if (engine != null && !engine.isBlank()) {
			environment.put(ENGINE_VARIABLE, engine);
		}
		return find(environment);
	}

	/** The binary the given environment selects ({@value #ENGINE_VARIABLE} standing for the system property too). */
	static RedisServerBinary find(Map<String, String> environment) {
		return switch (engine(environment)) {
			case REDIS -> findRedis(environment);
			case VALKEY -> findValkey(environment);
		};
	}

	private static Engine engine(Map<String, String> environment) {
		String selected = environment.get(ENGINE_VARIABLE);
		if (selected != null && !selected.isBlank()) {
			return Engine.named(selected);
		}
		return (isSet(environment, "VALKEY_SERVER_BINARY") && !isSet(environment, "REDIS_SERVER_BINARY"))
				? Engine.VALKEY : Engine.REDIS;
	}

	private static RedisServerBinary findRedis(Map<String, String> environment) {
		String configured = environment.get("REDIS_SERVER_BINARY");
		if (configured != null && !configured.isBlank()) {
			return BUNDLED.equals(configured.strip()) ? withVersion(extractBundled(), BUNDLED_SOURCE)
					: withVersion(Path.of(configured.strip()), "REDIS_SERVER_BINARY");
		}
		Path candidate = onPath(environment, Engine.REDIS.serverExecutable());
		if (candidate != null) {
			RedisServerBinary onPath = withVersion(candidate, "PATH");
			if (onPath.atLeast(BUNDLED_MAJOR)) {
				return onPath;
			}
			System.err.println("[redis-kit test-support] " + candidate + " is Redis " + onPath.version()
					+ ", older than " + BUNDLED_MAJOR + ": using the bundled Redis " + BUNDLED_VERSION);
		}
		return withVersion(extractBundled(), BUNDLED_SOURCE);
	}

	private static RedisServerBinary findValkey(Map<String, String> environment) {
		RedisServerBinary found;
		if (isSet(environment, "VALKEY_SERVER_BINARY")) {
			found = withVersion(Path.of(environment.get("VALKEY_SERVER_BINARY").strip()), "VALKEY_SERVER_BINARY");
		}
		else {
			Path candidate = onPath(environment, Engine.VALKEY.serverExecutable());
			if (candidate == null) {
				throw new IllegalStateException("Valkey is selected but there is no valkey-server on the PATH: install it"
						+ " (Debian bookworm: apt-get install -t bookworm-backports valkey-server valkey-sentinel) or set"
						+ " VALKEY_SERVER_BINARY to its path");
			}
			found = withVersion(candidate, "PATH");
		}
		if (found.engine() != Engine.VALKEY) {
			throw new IllegalStateException("Valkey is selected but " + found.describe() + " is not Valkey");
		}
		return found;
	}

	private static boolean isSet(Map<String, String> environment, String name) {
		String value = environment.get(name);
		return value != null && !value.isBlank();
	}

	private static @Nullable Path onPath(Map<String, String> environment, String executable) {
		String pathVariable = environment.get("PATH");
		if (pathVariable == null) {
			return null;
		}
		for (String dir : pathVariable.split(File.pathSeparator)) {
			if (!dir.isEmpty()) {
				Path candidate = Path.of(dir, executable);
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
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
			Engine engine = "Valkey".equals(matcher.group(1)) ? Engine.VALKEY : Engine.REDIS;
			return new RedisServerBinary(binary, engine, matcher.group(2), source);
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

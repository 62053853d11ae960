package io.rediskit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a {@code redis-server} executable: the {@code REDIS_SERVER_BINARY} environment variable, else
 * {@code redis-server} on the {@code PATH}, else the binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} jar (Redis 6.2 for Linux and macOS), extracted once per JVM.
 *
 * @param path the executable
 * @param version the server version it reports, such as {@code 7.0.15}
 * @param source where it came from, for log messages
 */
public record RedisServerBinary(Path path, String version, String source) {

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
		return Integer.parseInt(this.version.substring(0, this.version.indexOf('.'))) >= major;
	}

	private static RedisServerBinary find() {
		String configured = System.getenv("REDIS_SERVER_BINARY");
		if (configured != null && !configured.isBlank()) {
			return withVersion(Path.of(configured), "REDIS_SERVER_BINARY");
		}
		String pathVariable = System.getenv("PATH");
		if (pathVariable != null) {
			for (String dir : pathVariable.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, "redis-server");
				if (Files.isExecutable(candidate)) {
					return withVersion(candidate, "PATH");
				}
			}
		}
		return withVersion(extractEmbedded(), "embedded-redis jar");
	}

	private static Path extractEmbedded() {
		String resource = embeddedResourceName();
		try (InputStream in = RedisServerBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No redis-server on the PATH and no " + resource
						+ " in the embedded-redis jar: install redis-server or set REDIS_SERVER_BINARY");
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
			throw new IllegalStateException("Cannot extract redis-server from the embedded-redis jar", ex);
		}
	}

	private static String embeddedResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		if (os.contains("mac")) {
			return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
		}
		if (os.contains("linux")) {
			return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
		}
		throw new IllegalStateException("No embedded redis-server for " + os + "/" + arch
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

package io.rediskit.autoconfigure.console;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Actuator is optional, and the console reads the endpoints' descriptors without it: every endpoint class it makes
 * must load without Actuator on the class path. A class that throws one of Actuator's exceptions in its own methods
 * fails the JVM's verifier there ({@code NoClassDefFoundError}), which a filtering class loader in this JVM would not
 * show, so the classes are loaded in a second JVM whose class path has no Actuator jar.
 */
class ConsoleWithoutActuatorTests {

	static final List<String> READ_BY_THE_CONSOLE = List.of(
			"io.rediskit.autoconfigure.lock.RedisLocksEndpoint", "io.rediskit.autoconfigure.queue.RedisQueuesEndpoint",
			"io.rediskit.autoconfigure.ratelimit.RedisRateLimitEndpoint",
			"io.rediskit.autoconfigure.bloom.RedisBloomEndpoint", "io.rediskit.autoconfigure.counter.RedisCounterEndpoint",
			"io.rediskit.autoconfigure.geo.RedisGeoEndpoint", "io.rediskit.autoconfigure.id.RedisIdEndpoint",
			"io.rediskit.autoconfigure.cache.RedisCacheEndpoint", "io.rediskit.autoconfigure.keys.RedisKeysEndpoint",
			"io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint",
			"io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint",
			"io.rediskit.autoconfigure.console.ConsoleData", "io.rediskit.autoconfigure.console.ConsoleEndpoints",
			"io.rediskit.autoconfigure.support.ShownValues");

	@Test
	void everyEndpointTheConsoleReadsLoadsWithoutActuator() throws Exception {
		String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !Path.of(entry).getFileName().toString().contains("actuator"))
			.collect(Collectors.joining(File.pathSeparator));
		List<String> command = new java.util.ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath,
				Load.class.getName()));
		command.addAll(READ_BY_THE_CONSOLE);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		try {
			assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("the second JVM ended").isTrue();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			assertThat(output).doesNotContain("FAILED");
			assertThat(output.lines().filter((line) -> line.startsWith("loaded "))).hasSize(READ_BY_THE_CONSOLE.size());
			assertThat(process.exitValue()).as(output).isZero();
		}
		finally {
			process.destroyForcibly();
		}
	}

	/** Loads and initialises each class named, saying which failed. */
	static final class Load {

		public static void main(String[] args) {
			int failed = 0;
			try {
				Class.forName("org.springframework.boot.actuate.endpoint.annotation.Endpoint");
				System.out.println("FAILED: Actuator is on the class path");
				failed++;
			}
			catch (ClassNotFoundException expected) {
				// as it should be
			}
			for (String name : args) {
				try {
					Class.forName(name, true, Load.class.getClassLoader());
					System.out.println("loaded " + name);
				}
				catch (Throwable ex) {
					System.out.println("FAILED " + name + ": " + ex);
					failed++;
				}
			}
			System.exit((failed == 0) ? 0 : 1);
		}

	}

}

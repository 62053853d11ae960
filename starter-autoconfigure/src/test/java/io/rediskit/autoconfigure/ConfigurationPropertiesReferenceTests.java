package io.rediskit.autoconfigure;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration-properties.md} is what the configuration metadata of this build gives
 * ({@link ConfigurationPropertiesReference}): a property added, renamed or described differently fails the build
 * until the reference is regenerated with {@value #REGENERATE}, which writes the file instead of comparing it.
 */
class ConfigurationPropertiesReferenceTests {

	static final String REGENERATE = "./mvnw -pl starter-autoconfigure -am test"
			+ " -Dtest=ConfigurationPropertiesReferenceTests -Dsurefire.failIfNoSpecifiedTests=false"
			+ " -Dredis-kit.docs.write=true";

	private static final Path REFERENCE = Path.of("..", "docs", "configuration-properties.md");

	@Test
	void theCommittedReferenceIsTheOneTheMetadataGives() throws Exception {
		String generated = generate();
		if (Boolean.getBoolean("redis-kit.docs.write")) {
			Files.writeString(REFERENCE, generated);
			return;
		}
		List<String> differences = ConfigurationPropertiesReference.differences(REFERENCE, generated);
		assertThat(differences)
			.as("docs/configuration-properties.md differs from the configuration metadata; regenerate it with%n  %s%n"
					+ "Lines committed (-) and generated (+)", REGENERATE)
			.isEmpty();
	}

	@Test
	void theSettingsOfNamedEntriesNestedGroupsAndListElementsAreListedWithTheirJavadoc() throws Exception {
		assertThat(generate())
			.contains("| `redis-kit.rate-limit.limiters.<name>.limit` | `Long` |  | Permits per period, at least 1")
			.contains("| `redis-kit.rate-limit.algorithm` | `RateLimitAlgorithm` | `gcra` |")
			.contains("| `redis-kit.rate-limit.limiters.<name>.algorithm` | `RateLimitAlgorithm` |  | How permits are"
					+ " counted")
			.contains("unset for redis-kit.rate-limit.algorithm. |")
			.contains("| `redis-kit.queue.max-deliveries` | `Integer` | `10` |")
			.contains("| `redis-kit.queue.queues.<name>.max-deliveries` | `Integer` |  |")
			.contains("| `redis-kit.rate-limit.web.rules[n].permits` | `Integer` | `1` |")
			.contains("| `redis-kit.queue.queues.<name>.max-payload-size` | `DataSize` | `1MB` |")
			.contains("| `redis-kit.lock.watchdog-timeout` | `Duration` | `30s` |")
			.contains("| `redis-kit.cache.caches.<name>.near-cache.enabled` | `Boolean` |")
			.contains("| `redis-kit.cache.caches.<name>.near-cache.max-entries` | `Integer` |")
			.contains("| `redis-kit.queue.recurring.<name>.cron` | `String` |")
			.contains("| `redis-kit.queue.recurring.<name>.missed-slots` | `MissedSlots` | `run-once` |");
	}

	@Test
	void everyPropertyHasADescription() throws Exception {
		List<String> rows = generate().lines().filter((line) -> line.startsWith("| `")).toList();
		assertThat(rows).hasSizeGreaterThan(50);
		assertThat(rows).as("rows without a description (a field without Javadoc)")
			.noneMatch((row) -> row.endsWith("|  |"));
	}

	private static String generate() throws Exception {
		try (InputStream metadata = new ClassPathResource("META-INF/spring-configuration-metadata.json",
				ConfigurationPropertiesReferenceTests.class.getClassLoader())
			.getInputStream()) {
			return new ConfigurationPropertiesReference(Path.of("src", "main", "java")).generate(metadata);
		}
	}

}

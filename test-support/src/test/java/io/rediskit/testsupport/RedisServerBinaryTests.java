package io.rediskit.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class RedisServerBinaryTests {

	@Test
	void bundledBinaryIsRedisSeven() {
		RedisServerBinary bundled = RedisServerBinary.find(Map.of("REDIS_SERVER_BINARY", RedisServerBinary.BUNDLED));
		assertThat(bundled.version()).isEqualTo("7.0.15");
		assertThat(bundled.source()).startsWith("bundled");
		assertThat(Files.isExecutable(bundled.path())).isTrue();
	}

	@Test
	void withNoRedisOnThePathTheBundledBinaryIsUsed(@TempDir Path emptyDirectory) {
		RedisServerBinary found = RedisServerBinary.find(Map.of("PATH", emptyDirectory.toString()));
		assertThat(found.source()).startsWith("bundled");
		assertThat(found.atLeast(7)).isTrue();
	}

	@Test
	void anOlderRedisOnThePathIsPassedOverForTheBundledOne(@TempDir Path directory) throws IOException {
		fakeRedisServer(directory, "6.2.6");
		RedisServerBinary found = RedisServerBinary.find(Map.of("PATH", directory.toString()));
		assertThat(found.source()).startsWith("bundled");
		assertThat(found.version()).isEqualTo("7.0.15");
	}

	@Test
	void aCurrentRedisOnThePathIsUsed(@TempDir Path directory) throws IOException {
		Path fake = fakeRedisServer(directory, "7.2.4");
		RedisServerBinary found = RedisServerBinary.find(Map.of("PATH", directory.toString()));
		assertThat(found).isEqualTo(new RedisServerBinary(fake, "7.2.4", "PATH"));
	}

	@Test
	void anExplicitBinaryIsUsedWhateverItsVersion(@TempDir Path directory) throws IOException {
		Path fake = fakeRedisServer(directory, "6.0.16");
		RedisServerBinary found = RedisServerBinary.find(Map.of("REDIS_SERVER_BINARY", fake.toString(), "PATH", ""));
		assertThat(found.version()).isEqualTo("6.0.16");
		assertThat(found.missing(7, 0, "cluster-port")).startsWith("Needs Redis 7.0 or newer for cluster-port; found 6.0.16")
			.contains("REDIS_SERVER_BINARY").contains("'bundled'");
	}

	@Test
	void versionsCompareByMajorThenMinor() {
		RedisServerBinary binary = new RedisServerBinary(Path.of("redis-server"), "7.0.15", "test");
		assertThat(binary.atLeast(6, 2)).isTrue();
		assertThat(binary.atLeast(7, 0)).isTrue();
		assertThat(binary.atLeast(7, 2)).isFalse();
		assertThat(binary.atLeast(8)).isFalse();
		assertThat(binary.missing(7, 0, "anything")).isNull();
		assertThat(binary.missing(7, 2, "hash field expiry")).contains("7.2").contains("hash field expiry");
	}

	private static Path fakeRedisServer(Path directory, String version) throws IOException {
		Path fake = directory.resolve("redis-server");
		Files.writeString(fake, "#!/bin/sh\necho \"Redis server v=" + version + " sha=00000000:0 malloc=libc bits=64\"\n",
				StandardCharsets.UTF_8);
		assertThat(fake.toFile().setExecutable(true)).isTrue();
		return fake;
	}

}

package io.rediskit.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.rediskit.testsupport.RedisServerBinary.Engine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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
		assertThat(found).isEqualTo(new RedisServerBinary(fake, Engine.REDIS, "7.2.4", "PATH"));
	}

	@Test
	void anExplicitBinaryIsUsedWhateverItsVersion(@TempDir Path directory) throws IOException {
		Path fake = fakeRedisServer(directory, "6.0.16");
		RedisServerBinary found = RedisServerBinary.find(Map.of("REDIS_SERVER_BINARY", fake.toString(), "PATH", ""));
		assertThat(found.version()).isEqualTo("6.0.16");
		assertThat(found.missing(7, 0, "cluster-port"))
			.startsWith("Needs Redis 7.0 or newer for cluster-port; found Redis 6.0.16")
			.contains("REDIS_SERVER_BINARY")
			.contains("'bundled'");
	}

	@Test
	void versionsCompareByMajorThenMinor() {
		RedisServerBinary binary = new RedisServerBinary(Path.of("redis-server"), Engine.REDIS, "7.0.15", "test");
		assertThat(binary.atLeast(6, 2)).isTrue();
		assertThat(binary.atLeast(7, 0)).isTrue();
		assertThat(binary.atLeast(7, 2)).isFalse();
		assertThat(binary.atLeast(8)).isFalse();
		assertThat(binary.missing(7, 0, "anything")).isNull();
		assertThat(binary.missing(7, 2, "hash field expiry")).contains("7.2").contains("hash field expiry");
	}

	@Test
	void valkeyIsSelectedByTheEngineVariableAndFoundOnThePath(@TempDir Path directory) throws IOException {
		Path server = fakeServer(directory, "valkey-server", "Valkey", "8.0.1");
		Path sentinel = fakeServer(directory, "valkey-sentinel", "Valkey", "8.0.1");
		fakeRedisServer(directory, "7.2.4");
		RedisServerBinary found = RedisServerBinary
			.find(Map.of(RedisServerBinary.ENGINE_VARIABLE, "valkey", "PATH", directory.toString()));
		assertThat(found).isEqualTo(new RedisServerBinary(server, Engine.VALKEY, "8.0.1", "PATH"));
		assertThat(found.nameAndVersion()).isEqualTo("Valkey 8.0.1");
		assertThat(found.sentinelPath()).isEqualTo(sentinel);
	}

	@Test
	void valkeyServerBinaryAloneSelectsValkey(@TempDir Path directory) throws IOException {
		Path server = fakeServer(directory, "valkey-server", "Valkey", "8.1.3");
		RedisServerBinary found = RedisServerBinary.find(Map.of("VALKEY_SERVER_BINARY", server.toString(), "PATH", ""));
		assertThat(found.engine()).isEqualTo(Engine.VALKEY);
		assertThat(found.source()).isEqualTo("VALKEY_SERVER_BINARY");
		assertThat(found.sentinelPath()).as("no valkey-sentinel beside it: the server with --sentinel").isEqualTo(server);
	}

	@Test
	void selectedValkeyThatIsNotInstalledFailsNamingWhatToInstall(@TempDir Path emptyDirectory) {
		assertThatIllegalStateException()
			.isThrownBy(() -> RedisServerBinary
				.find(Map.of(RedisServerBinary.ENGINE_VARIABLE, "valkey", "PATH", emptyDirectory.toString())))
			.withMessageContaining("valkey-server")
			.withMessageContaining("VALKEY_SERVER_BINARY");
	}

	@Test
	void anUnknownEngineFails() {
		assertThatIllegalStateException()
			.isThrownBy(() -> RedisServerBinary.find(Map.of(RedisServerBinary.ENGINE_VARIABLE, "keydb")))
			.withMessageContaining("redis or valkey");
	}

	@Test
	void theEngineIsWhatTheBinaryReportsNotWhatNamedIt(@TempDir Path directory) throws IOException {
		Path valkey = fakeServer(directory, "valkey-server", "Valkey", "8.0.1");
		RedisServerBinary found = RedisServerBinary.find(Map.of("REDIS_SERVER_BINARY", valkey.toString(), "PATH", ""));
		assertThat(found.engine()).isEqualTo(Engine.VALKEY);
		Path redis = fakeRedisServer(directory, "7.2.4");
		assertThatIllegalStateException()
			.isThrownBy(() -> RedisServerBinary.find(Map.of("VALKEY_SERVER_BINARY", redis.toString(), "PATH", "")))
			.withMessageContaining("is not Valkey");
	}

	@Test
	void valkeyOffersTheCommandsOfRedisSevenTwo() {
		RedisServerBinary valkey = new RedisServerBinary(Path.of("valkey-server"), Engine.VALKEY, "8.0.1", "test");
		assertThat(valkey.redisVersion()).isEqualTo("7.2.4");
		assertThat(valkey.atLeast(7, 2)).isTrue();
		assertThat(valkey.atLeast(7, 4)).isFalse();
		assertThat(valkey.missing(7, 4, "hash-field expiration")).contains("Valkey 8.0.1")
			.contains("offers Redis 7.2.4's commands");
	}

	private static Path fakeRedisServer(Path directory, String version) throws IOException {
		return fakeServer(directory, "redis-server", "Redis", version);
	}

	private static Path fakeServer(Path directory, String executable, String engine, String version)
			throws IOException {
		Path fake = directory.resolve(executable);
		Files.writeString(fake,
				"#!/bin/sh\necho \"" + engine + " server v=" + version + " sha=00000000:0 malloc=libc bits=64\"\n",
				StandardCharsets.UTF_8);
		assertThat(fake.toFile().setExecutable(true)).isTrue();
		return fake;
	}

}

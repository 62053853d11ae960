package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The plain-command path, on both of its ways to Redis (the shared native Lettuce connection and a connection
 * borrowed per call), sync and async: reply types, commands Lettuce does not know, errors and outages.
 */
class CommandExecutorTests {

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.standalone();

	private LettuceConnectionFactory shared;

	private LettuceConnectionFactory unshared;

	@BeforeEach
	void connect() {
		this.shared = TestConnections.lettuce(servers.server(), Duration.ofMillis(500));
		this.unshared = TestConnections.lettuce(servers.server(), Duration.ofMillis(500));
		this.unshared.setShareNativeConnection(false);
		servers.flushAll();
	}

	@AfterEach
	void disconnect() {
		this.shared.destroy();
		this.unshared.destroy();
	}

	static Stream<String> paths() {
		return Stream.of("native", "borrowed");
	}

	private CommandExecutor executor(String path) {
		CommandExecutor executor = CommandExecutor.of(path.equals("native") ? this.shared : this.unshared);
		assertThat(executor.isNative()).isEqualTo(path.equals("native"));
		return executor;
	}

	@ParameterizedTest
	@MethodSource("paths")
	void oneServerIsNoClusterOnEitherPath(String path) {
		CommandExecutor executor = executor(path);
		assertThat(executor.isCluster()).isFalse();
		assertThat(executor.isCluster()).as("kept").isFalse();
	}

	@ParameterizedTest
	@MethodSource("paths")
	void readsIntegerValueAndArrayRepliesWithNils(String path) throws Exception {
		CommandExecutor executor = executor(path);
		assertThat((Long) executor.execute("PFADD", ReturnType.INTEGER, bytes("hll"), bytes("a"), bytes("b")))
			.isEqualTo(1L);
		assertThat((Long) executor.execute("PFCOUNT", ReturnType.INTEGER, bytes("hll"))).isEqualTo(2L);
		// BITFIELD_RO is unknown to Lettuce's command table; OVERFLOW FAIL answers nil for the overflowing op.
		List<Object> reply = executor.execute("BITFIELD", ReturnType.MULTI, bytes("bits"), bytes("SET"),
				bytes("u8"), bytes("0"), bytes("255"), bytes("OVERFLOW"), bytes("FAIL"), bytes("INCRBY"),
				bytes("u8"), bytes("0"), bytes("1"));
		assertThat(reply).containsExactly(0L, null);
		List<Object> read = executor.<List<Object>>executeAsync("BITFIELD_RO", ReturnType.MULTI, bytes("bits"),
				bytes("GET"), bytes("u8"), bytes("0"))
			.toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		assertThat(read).containsExactly(255L);
		executor.execute("SET", ReturnType.STATUS, bytes("s"), bytes("v"));
		byte[] value = executor.execute("GET", ReturnType.VALUE, bytes("s"));
		assertThat(new String(value, StandardCharsets.UTF_8)).isEqualTo("v");
		List<Object> nested = executor.execute("COMMAND", ReturnType.MULTI, bytes("INFO"), bytes("GET"),
				bytes("NO.SUCH.COMMAND"));
		assertThat(nested).hasSize(2);
		assertThat(nested.get(0)).isInstanceOf(List.class);
		assertThat(nested.get(1)).isNull();
	}

	@ParameterizedTest
	@MethodSource("paths")
	void aCommandErrorIsThrownAsADataAccessExceptionThatIsNotAnOutage(String path) {
		CommandExecutor executor = executor(path);
		servers.server().command("HSET", "h", "f", "v");
		assertThatExceptionOfType(DataAccessException.class)
			.isThrownBy(() -> executor.execute("PFADD", ReturnType.INTEGER, bytes("h"), bytes("x")))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse())
			.satisfies((ex) -> assertThat(ex.getMostSpecificCause().getMessage()).startsWith("WRONGTYPE"));
		CompletableFuture<Object> async = executor.executeAsync("PFADD", ReturnType.INTEGER, bytes("h"), bytes("x"))
			.toCompletableFuture();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(DataAccessException.class);
	}

	@ParameterizedTest
	@MethodSource("paths")
	void aPausedServerIsAnOutageWithinTheCommandTimeout(String path) throws Exception {
		CommandExecutor executor = executor(path);
		executor.execute("PFADD", ReturnType.INTEGER, bytes("hll"), bytes("a"));
		servers.server().pause();
		try {
			assertThatExceptionOfType(path.equals("native") ? QueryTimeoutException.class : DataAccessException.class)
				.isThrownBy(() -> executor.execute("PFCOUNT", ReturnType.INTEGER, bytes("hll")))
				.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
			if (path.equals("native")) {
				CompletableFuture<Object> async = executor.executeAsync("PFCOUNT", ReturnType.INTEGER, bytes("hll"))
					.toCompletableFuture();
				assertThat(async).isNotDone();
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
					.withCauseInstanceOf(QueryTimeoutException.class);
			}
		}
		finally {
			servers.server().resume();
		}
		assertThat((Long) executor.execute("PFCOUNT", ReturnType.INTEGER, bytes("hll"))).isEqualTo(1L);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The one script path, on both of its ways to Redis: the shared native Lettuce connection and a connection
 * borrowed per call (the path of Jedis, or of Lettuce without a shared connection), sync and async.
 */
class ScriptExecutorTests {

	// Counts its runs in a key, so a second application of one call shows.
	private static final LuaScript COUNTING = LuaScript.fromClasspath("io/rediskit/support/counting.lua");

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

	private ScriptExecutor executor(String path) {
		ScriptExecutor executor = ScriptExecutor.of(path.equals("native") ? this.shared : this.unshared);
		assertThat(executor.isNative()).isEqualTo(path.equals("native"));
		return executor;
	}

	@ParameterizedTest
	@MethodSource("paths")
	void runsByShaAndSendsTheBodyOnceAfterScriptFlush(String path) throws Exception {
		ScriptExecutor executor = executor(path);
		assertThat((Long) executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))).isEqualTo(1L);
		assertThat(servers.server().command("SCRIPT", "EXISTS", COUNTING.sha1())).isEqualTo(List.of(1L));
		servers.server().command("SCRIPT", "FLUSH");
		assertThat((Long) executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))).isEqualTo(2L);
		servers.server().command("SCRIPT", "FLUSH");
		Long async = executor.<Long>executeAsync(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))
			.toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		assertThat(async).isEqualTo(3L);
		// Each call ran exactly once: NOSCRIPT ran nothing, EVAL ran it once.
		assertThat(servers.server().command("GET", "runs")).isEqualTo("3");
		assertThat(servers.server().command("SCRIPT", "EXISTS", COUNTING.sha1())).isEqualTo(List.of(1L));
	}

	@ParameterizedTest
	@MethodSource("paths")
	void readsMultiBulkRepliesAsLongsAndBytes(String path) throws Exception {
		ScriptExecutor executor = executor(path);
		List<Object> reply = executor.execute(COUNTING, ReturnType.MULTI, 1, bytes("runs"), bytes("multi"));
		assertThat(reply).hasSize(2);
		assertThat(reply.get(0)).isEqualTo(1L);
		assertThat(new String((byte[]) reply.get(1), StandardCharsets.UTF_8)).isEqualTo("runs");
		List<Object> async = executor.<List<Object>>executeAsync(COUNTING, ReturnType.MULTI, 1, bytes("runs"),
				bytes("multi"))
			.toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		assertThat(async.get(0)).isEqualTo(2L);
	}

	@ParameterizedTest
	@MethodSource("paths")
	void aCommandErrorIsThrownAsADataAccessExceptionAndNotRetried(String path) {
		ScriptExecutor executor = executor(path);
		servers.server().command("HSET", "runs", "f", "v");
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs")))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse());
		CompletableFuture<Object> async = executor.executeAsync(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))
			.toCompletableFuture();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(RedisSystemException.class);
	}

	@ParameterizedTest
	@MethodSource("paths")
	void aPausedServerIsAnOutageWithinTheCommandTimeout(String path) throws Exception {
		ScriptExecutor executor = executor(path);
		executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"));
		servers.server().pause();
		try {
			// A timeout on the shared connection; on a connection borrowed per call, the connect fails first.
			assertThatExceptionOfType(path.equals("native") ? QueryTimeoutException.class : DataAccessException.class)
				.isThrownBy(() -> executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs")))
				.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
			if (path.equals("native")) {
				CompletableFuture<Object> async = executor
					.executeAsync(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))
					.toCompletableFuture();
				// The calling thread was not held up: the stage is still open while the server sleeps.
				assertThat(async).isNotDone();
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
					.withCauseInstanceOf(QueryTimeoutException.class);
			}
		}
		finally {
			servers.server().resume();
		}
		assertThat((Long) executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))).isPositive();
	}

	@Test
	void theNativePathKeepsWorkingAfterTheFactoryResetsItsSharedConnection() {
		ScriptExecutor executor = executor("native");
		assertThat((Long) executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))).isEqualTo(1L);
		this.shared.resetConnection();
		assertThat((Long) executor.execute(COUNTING, ReturnType.INTEGER, 1, bytes("runs"))).isEqualTo(2L);
	}

	@Test
	void recognisesNoScriptByTypeOrErrorCode() {
		assertThat(RedisFailures.isNoScript(new RuntimeException(new io.lettuce.core.RedisNoScriptException("x"))))
			.isTrue();
		assertThat(RedisFailures.isNoScript(new RuntimeException("NOSCRIPT No matching script"))).isTrue();
		assertThat(RedisFailures.isNoScript(new RuntimeException("ERR something else"))).isFalse();
	}

	@Test
	void classifiesOutagesByDriverTypeNotByName() {
		assertThat(RedisFailures.isUnavailable(new RedisSystemException("x",
				new io.lettuce.core.RedisCommandTimeoutException("slow")))).isTrue();
		assertThat(RedisFailures.isUnavailable(new RedisSystemException("x",
				new io.lettuce.core.RedisLoadingException("LOADING")))).isTrue();
		assertThat(RedisFailures.isUnavailable(new RedisSystemException("x",
				new io.lettuce.core.RedisReadOnlyException("READONLY")))).isTrue();
		assertThat(RedisFailures.isUnavailable(new RedisSystemException("x",
				new io.lettuce.core.RedisCommandExecutionException("WRONGTYPE")))).isFalse();
		assertThat(RedisFailures.isUnavailable(new InvalidDataAccessApiUsageException("bad"))).isFalse();
		// What Lettuce fails a command in flight with when its connection is reset (NetworkFaultTests).
		assertThat(RedisFailures.isUnavailable(
				new java.util.concurrent.CompletionException(new java.net.SocketException("Connection reset")))).isTrue();
	}

	@Test
	void missingResourceFailsClearly() {
		assertThatIllegalStateException().isThrownBy(() -> LuaScript.fromClasspath("nope.lua"))
			.withMessageContaining("nope.lua");
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

package io.rediskit.bloom;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** A paused server, SCRIPT FLUSH and a wrong-typed key: the documented exception, listeners told, recovery. */
class BloomOutageTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofMillis(500));

	final List<String> failures = new CopyOnWriteArrayList<>();

	BloomFilter filter;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.filter = new BloomFilterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), BloomMode.BITMAP, List.of(new BloomFilterListener() {

					@Override
					public void onFailure(String filterName, BloomOperation operation, RuntimeException failure) {
						BloomOutageTests.this.failures.add(filterName + " " + operation.tag());
					}

				}), (name) -> null).create("f", BloomFilterSpec.of(1000, 0.01));
	}

	@Test
	void aPausedServerFailsEachCallWithinTheCommandTimeoutAndItRecovers() throws Exception {
		this.filter.add("a");
		redis.server().pause();
		try {
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.filter.add("b"))
				.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
			CompletableFuture<Boolean> async = this.filter.mightContainAsync("a").toCompletableFuture();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(DataAccessException.class);
		}
		finally {
			redis.server().resume();
		}
		assertThat(this.failures).containsExactly("f add", "f contains");
		assertThat(this.filter.mightContain("a")).isTrue();
		// The timed-out add was still sent: the server applied it when it resumed. A failed add may have happened.
		assertThat(this.filter.mightContain("b")).isTrue();
		assertThat(this.filter.add("c")).isTrue();
	}

	@Test
	void theAddScriptIsResentOnceAfterScriptFlush() {
		this.filter.add("a");
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(this.filter.addAll(List.of("a", "b"))).containsExactly(false, true);
	}

	@Test
	void aKeyOfAnotherTypeIsACommandErrorNotAnOutage() {
		redis.server().command("HSET", "rk:bloom:{f}", "x", "y");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.filter.add("a"))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse());
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.filter.mightContain("a"));
		assertThat(this.failures).isEmpty();
	}

}

package io.rediskit.bloom;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** A paused server, SCRIPT FLUSH and a wrong-typed key: the documented exception, observed as errors, recovery. */
class BloomOutageTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofMillis(500));

	final ObservationRecorder recorder = new ObservationRecorder();

	BloomFilter filter;

	BloomFilterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new BloomFilterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), BloomMode.BITMAP, List.of(), (name) -> null);
		this.registry.setObservations(this.recorder.observations());
		this.filter = this.registry.create("f", BloomFilterSpec.of(1000, 0.01));
	}

	/** A growing filter as well: its scripts go through the same failure handling. */
	BloomFilter filter(boolean growing) {
		return growing ? this.registry.create("g", BloomFilterSpec.of(10, 0.01).withGrowth(BloomGrowth.DEFAULT))
				: this.filter;
	}

	@ParameterizedTest(name = "growing: {0}")
	@ValueSource(booleans = { false, true })
	void aPausedServerFailsEachCallWithinTheCommandTimeoutAndItRecovers(boolean growing) throws Exception {
		BloomFilter filter = filter(growing);
		String name = filter.name();
		filter.add("a");
		redis.server().pause();
		try {
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> filter.add("b"))
				.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
			CompletableFuture<Boolean> async = filter.mightContainAsync("a").toCompletableFuture();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> async.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(DataAccessException.class);
		}
		finally {
			redis.server().resume();
		}
		assertThat(this.recorder.calls(RedisKitObservation.BLOOM_OPERATION, "error")).containsExactly(name + " add",
				name + " contains");
		assertThat(filter.mightContain("a")).isTrue();
		// The timed-out add was still sent: the server applied it when it resumed. A failed add may have happened.
		assertThat(filter.mightContain("b")).isTrue();
		assertThat(filter.add("c")).isTrue();
	}

	@ParameterizedTest(name = "growing: {0}")
	@ValueSource(booleans = { false, true })
	void theAddScriptIsResentOnceAfterScriptFlush(boolean growing) {
		BloomFilter filter = filter(growing);
		filter.add("a");
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(filter.addAll(List.of("a", "b"))).containsExactly(false, true);
		redis.server().command("SCRIPT", "FLUSH");
		assertThat(filter.mightContainAll(List.of("a", "b", "z"))).containsExactly(true, true, false);
	}

	@Test
	void aKeyOfAnotherTypeIsACommandErrorNotAnOutage() {
		redis.server().command("HSET", "rk:bloom:{f}", "x", "y");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.filter.add("a"))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse());
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> this.filter.mightContain("a"));
		// Observed as errors, with the command's error, not an outage.
		assertThat(this.recorder.stopped(RedisKitObservation.BLOOM_OPERATION)).hasSize(2)
			.allSatisfy((call) -> assertThat(RedisFailures.isUnavailable(call.getError())).isFalse());
	}

}

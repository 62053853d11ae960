package io.rediskit.id;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Id generators against a real redis-server: blocks, one round trip per block, gaps, observations, bad specs. */
class IdGeneratorTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final ObservationRecorder recorder = new ObservationRecorder();

	IdGeneratorRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = registry();
	}

	IdGeneratorRegistry registry() {
		IdGeneratorRegistry registry = new IdGeneratorRegistry(CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), (name) -> null);
		registry.setObservations(this.recorder.observations());
		return registry;
	}

	/** @return the blocks reserved, as observed: {@code "<generator> block"} each */
	List<String> blocks() {
		return this.recorder.calls(RedisKitObservation.ID_OPERATION, "success");
	}

	@Test
	void oneRoundTripPerBlockAndANewInstanceStartsAfterTheReservedBlocks() {
		IdGenerator ids = this.registry.create("orders", IdGeneratorSpec.ofBlockSize(10));
		List<Long> taken = new ArrayList<>();
		for (int i = 0; i < 25; i++) {
			taken.add(ids.next());
		}
		assertThat(taken).startsWith(1L, 2L, 3L).endsWith(24L, 25L).doesNotHaveDuplicates();
		assertThat(blocks()).containsExactly("orders block", "orders block", "orders block");
		assertThat(redis.server().command("GET", "rk:id:{orders}")).isEqualTo("30");
		// A restart: a new registry reserves a new block; 26..30 are a gap.
		IdGenerator restarted = registry().create("orders", IdGeneratorSpec.ofBlockSize(10));
		assertThat(restarted.next()).isEqualTo(31);
		assertThat(ids.next()).isEqualTo(26);
	}

	@Test
	void asyncCallsShareOneReservationAndCompleteAtOnceWhileTheBlockLasts() throws Exception {
		IdGenerator ids = this.registry.create("async", IdGeneratorSpec.ofBlockSize(100));
		List<java.util.concurrent.CompletableFuture<Long>> futures = new ArrayList<>();
		for (int i = 0; i < 250; i++) {
			futures.add(ids.nextAsync().toCompletableFuture());
		}
		List<Long> taken = new ArrayList<>();
		for (var future : futures) {
			taken.add(future.get(5, TimeUnit.SECONDS));
		}
		assertThat(taken).doesNotHaveDuplicates().allSatisfy((id) -> assertThat(id).isBetween(1L, 300L));
		assertThat(blocks()).containsExactly("async block", "async block", "async block");
		assertThat(ids.nextAsync().toCompletableFuture().isDone()).isTrue();
	}

	@Test
	void aFailedReservationFailsItsCallersAndTheNextCallTriesAgain() {
		IdGenerator ids = this.registry.create("broken", IdGeneratorSpec.ofBlockSize(5));
		redis.server().command("SET", "rk:id:{broken}", "not a number");
		assertThatExceptionOfType(org.springframework.dao.DataAccessException.class).isThrownBy(ids::next);
		redis.server().command("SET", "rk:id:{broken}", "100");
		assertThat(ids.next()).isEqualTo(101);
	}

	@Test
	void badSpecsNameTheComponent() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> IdGeneratorSpec.ofBlockSize(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("blockSize"));
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> IdGeneratorSpec.ofBlockSize(1_000_001))
			.withMessageContaining("must be from 1 to 1000000");
	}

}

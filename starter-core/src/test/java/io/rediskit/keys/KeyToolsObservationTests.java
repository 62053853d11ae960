package io.rediskit.keys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Each call of the key tools is one {@code rediskit.keys.operation} of the whole call, tagged with the operation and
 * the outcome and never with a pattern or a key; a scan one per batch it fetches, none open between batches; a
 * failed or interrupted call ends its observation with the error; none is left open.
 */
class KeyToolsObservationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.withCommandTimeout(Duration.ofMillis(500));

	final TestObservationRegistry observed = TestObservationRegistry.create();

	final ObservationRecorder recorder = new ObservationRecorder();

	KeyTools tools;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.observed.observationConfig().observationHandler(this.recorder);
		this.tools = new KeyTools(redis.connections(), List.of());
		this.tools.setObservations(Observations.of(this.observed, null));
		for (int i = 0; i < 300; i++) {
			redis.server().command("SET", "secret:user-" + i, "1");
		}
		List<String> fields = new ArrayList<>(List.of("HSET", "secret:big"));
		for (int i = 0; i < 1200; i++) {
			fields.add("f" + i);
			fields.add("v");
		}
		redis.server().command(fields.toArray(String[]::new));
	}

	@Test
	void eachCallIsOneObservationOfTheWholeCallTaggedWithItsOperationOnly() {
		KeyScan scan = this.tools.scan(KeyScanOptions.matching("secret:*").withBatchSize(50));
		assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).as("nothing sent yet").isEmpty();
		List<String> found = new ArrayList<>();
		int batches = 0;
		while (!scan.isDone()) {
			found.addAll(scan.nextBatch());
			batches++;
			assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).as("between batches").isEmpty();
		}
		assertThat(found).hasSize(301);
		assertThat(this.tools.bigKeys(BigKeyOptions.of(KeyScanOptions.matching("secret:*"))).keysScanned()).isEqualTo(301);
		assertThat(this.tools.deleteKey("secret:big", DeleteOptions.defaults().withBatchSize(500)).elements())
			.isEqualTo(1200);
		assertThat(this.tools.deleteByPattern(KeyScanOptions.matching("secret:user-1*"), DeleteOptions.defaults())
			.keys()).isPositive();
		this.tools.lazyfreeWarnings();
		// One per batch of the scan; the scans inside the report and the deletion, and the lazyfree check of the
		// first deletion, are theirs.
		List<String> calls = this.recorder.stopped(RedisKitObservation.KEYS_OPERATION).stream()
			.map((context) -> ((RedisKitContext) context).detail() + " " + ObservationRecorder.outcome(context))
			.toList();
		assertThat(batches).isGreaterThan(1);
		assertThat(calls.subList(0, batches)).containsOnly("scan success");
		assertThat(calls.subList(batches, calls.size())).containsExactly("big-keys success", "delete-key success",
				"delete-pattern success", "lazyfree success");
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasNumberOfObservationsWithNameEqualTo("rediskit.keys.operation", batches + 4)
			.forAllObservationsWithNameEqualTo("rediskit.keys.operation",
					(call) -> call
						.doesNotHaveError()
						.hasLowCardinalityKeyValue("name", "keys")
						.hasLowCardinalityKeyValueWithKey("operation")
						.hasLowCardinalityKeyValue("outcome", "success"))
			.hasAnObservation((call) -> call.hasContextualNameEqualTo("key tools scan keys"))
			.hasAnObservation((call) -> call.hasContextualNameEqualTo("key tools delete-key keys"));
		assertThat(this.recorder.stopped(RedisKitObservation.KEYS_OPERATION)).allSatisfy((context) -> {
			assertThat(context.getLowCardinalityKeyValues()).hasSize(3)
				.noneMatch((tag) -> tag.getValue().contains("secret"));
			assertThat(context.getHighCardinalityKeyValues()).isEmpty();
		});
	}

	@Test
	void aScanDroppedHalfReadClosedOrResumedLeavesNothingOpen() {
		KeyScan scan = this.tools.scan(KeyScanOptions.matching("secret:*").withBatchSize(10));
		assertThat(scan.nextBatch()).isNotNull();
		String cursor = scan.cursor();
		assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).as("dropped half-read").isEmpty();
		scan.close();
		scan.close();
		assertThat(scan.cursor()).as("still where to resume").isEqualTo(cursor);
		try (Stream<String> keys = this.tools.scan(KeyScanOptions.matching("secret:*").withBatchSize(10)).stream()) {
			assertThat(keys.limit(5)).hasSize(5);
		}
		int before = this.recorder.stopped(RedisKitObservation.KEYS_OPERATION).size();
		this.tools.scan(KeyScanOptions.matching("secret:*")).close();
		assertThat(this.recorder.stopped(RedisKitObservation.KEYS_OPERATION)).as("never fetched").hasSize(before);
		// Resumed from its cursor, as a later request would: it goes on to its end.
		KeyScan resumed = this.tools.scan(KeyScanOptions.matching("secret:*").withBatchSize(10), cursor);
		resumed.forEachRemaining((key) -> {
		});
		assertThat(resumed.isDone()).isTrue();
		assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).isEmpty();
		assertThat(this.recorder.calls(RedisKitObservation.KEYS_OPERATION, "success")).hasSizeGreaterThan(2)
			.containsOnly("keys scan");
		assertThat(this.recorder.stopped(RedisKitObservation.KEYS_OPERATION))
			.allSatisfy((context) -> assertThat(context.getError()).isNull());
	}

	@Test
	void aFailedCallEndsItsObservationWithTheError() {
		KeyScan scan = this.tools.scan(KeyScanOptions.matching("secret:*").withBatchSize(10));
		scan.nextBatch();
		redis.server().pause();
		try {
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> {
				while (!scan.isDone()) {
					scan.nextBatch();
				}
			});
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> this.tools.bigKeys(BigKeyOptions.of(KeyScanOptions.matching("secret:*"))));
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> this.tools.deleteKey("secret:big", DeleteOptions.defaults()));
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(
					() -> this.tools.deleteByPattern(KeyScanOptions.matching("secret:*"), DeleteOptions.defaults()));
		}
		finally {
			redis.server().resume();
		}
		assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).isEmpty();
		assertThat(this.recorder.calls(RedisKitObservation.KEYS_OPERATION, "error")).containsExactly("keys scan",
				"keys big-keys", "keys delete-key", "keys delete-pattern");
		assertThat(this.recorder.stopped(RedisKitObservation.KEYS_OPERATION).stream()
			.filter((context) -> "error".equals(ObservationRecorder.outcome(context))))
			.hasSize(4)
			.allSatisfy((context) -> assertThat(context.getError()).isInstanceOf(DataAccessException.class));
		// The scan goes on from its cursor once the server answers, one observation per batch, to its end.
		int before = this.recorder.calls(RedisKitObservation.KEYS_OPERATION, "success").size();
		scan.forEachRemaining((key) -> {
		});
		assertThat(this.recorder.calls(RedisKitObservation.KEYS_OPERATION, "success")).hasSizeGreaterThan(before)
			.containsOnly("keys scan");
	}

	@Test
	void aDeletionInterruptedBetweenBatchesEndsAsInterrupted() {
		KeyTools tools = new KeyTools(redis.connections(), List.of(new KeyToolsListener() {

			@Override
			public void onDeleteProgress(String operation, long keys, long elements, Duration elapsed) {
				// The listener runs on the deleting thread: the interrupt lands in the pause after this batch.
				Thread.currentThread().interrupt();
			}

		}));
		tools.setObservations(Observations.of(this.observed, null));
		try {
			assertThatIllegalStateException()
				.isThrownBy(() -> tools.deleteKey("secret:big",
						DeleteOptions.defaults().withBatchSize(100).withPause(Duration.ofSeconds(30))))
				.withCauseInstanceOf(InterruptedException.class);
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(this.recorder.open(RedisKitObservation.KEYS_OPERATION)).isEmpty();
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasObservationWithNameEqualTo("rediskit.keys.operation")
			.that()
			.hasLowCardinalityKeyValue("operation", "delete-key")
			.hasLowCardinalityKeyValue("outcome", "interrupted")
			.assertThatError()
			.hasCauseInstanceOf(InterruptedException.class);
	}

	@Test
	void theCallIsInScopeOnItsThreadWhileItRunsAndOnlyThen() {
		List<Observation> current = new ArrayList<>();
		KeyTools tools = new KeyTools(redis.connections(), List.of(new KeyToolsListener() {

			@Override
			public void onDeleted(String operation, long keys, long elements) {
				current.add(KeyToolsObservationTests.this.observed.getCurrentObservation());
			}

		}));
		tools.setObservations(Observations.of(this.observed, null));
		tools.deleteKey("secret:big", DeleteOptions.defaults().withBatchSize(500));
		assertThat(current).isNotEmpty().allSatisfy((observation) -> assertThat(observation).isNotNull()
			.extracting((call) -> call.getContext().getContextualName())
			.isEqualTo("key tools delete-key keys"));
		assertThat(this.observed.getCurrentObservation()).as("closed after the call").isNull();
	}

}

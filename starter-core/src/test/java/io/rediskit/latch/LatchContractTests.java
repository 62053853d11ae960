package io.rediskit.latch;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.rediskit.lock.CompletionStageWaiter;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the count-down latch promises on every deployment: counted down from any instance, waiters on every
 * instance released when the count reaches zero and never before (checked independently: each count-down first
 * notes its intent in a plain counter, and a released waiter must find every intent noted), replays counted once,
 * an open latch kept for late waiters, an abandoned one expiring without opening.
 */
class LatchContractTests extends TopologyContract {

	RecordingLatchListener listener;

	LatchRegistry registry;

	LatchRegistry other;

	@BeforeEach
	void open() {
		this.listener = new RecordingLatchListener();
		this.registry = registry(LatchSpec.defaults(), this.listener);
		this.other = registry(LatchSpec.defaults(), new RecordingLatchListener());
	}

	@AfterEach
	void close() {
		this.registry.close();
		this.other.close();
	}

	LatchRegistry registry(LatchSpec spec, LatchListener listener) {
		LatchSpec polled = new LatchSpec(spec.abandonedAfter(), spec.openFor(), Duration.ofMillis(200));
		LatchRegistry registry = new LatchRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), polled, List.of(listener));
		if (listener instanceof RecordingLatchListener recording) {
			registry.setObservations(recording.observations);
		}
		return registry;
	}

	@Test
	void countsDownFromAnyInstanceAndOpensAtZero() throws Exception {
		String name = this.redis.unique("batch");
		RedisCountDownLatch latch = this.registry.getCountDownLatch(name);
		RedisCountDownLatch there = this.other.getCountDownLatch(name);
		assertThat(latch.count()).as("not set").isEqualTo(-1);
		assertThat(latch.trySetCount(3)).isTrue();
		assertThat(there.trySetCount(5)).as("counting already").isFalse();
		assertThat(latch.countDown()).isEqualTo(2);
		assertThat(there.countDown()).isEqualTo(1);
		assertThat(latch.awaitAsync(Duration.ofMillis(300)).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
		// An asynchronous wait is reported once its stage took the outcome, just after the stage completes.
		awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
				() -> this.listener.events.contains("await " + name + " TIMEOUT"));
		assertThat(there.countDown()).isZero();
		assertThat(latch.await(Duration.ZERO)).isTrue();
		assertThat(latch.countDown()).as("open").isZero();
		assertThat(there.count()).isZero();
		assertThat(this.listener.events).containsExactly("down " + name + " 2", "await " + name + " TIMEOUT",
				"await " + name + " OPENED", "down " + name + " 0");
		assertThat(latch.trySetCount(1)).as("an open latch is set again").isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> latch.trySetCount(0))
			.withMessage("count must be at least 1, was 0");
	}

	@Test
	void listsTheLatchesItHandedOutWithTheirCountsInRedis() {
		String name = this.redis.unique("listed");
		assertThat(this.other.getCountDownLatch(name).trySetCount(2)).isTrue();
		this.registry.getCountDownLatch(name);
		assertThat(this.registry.latches()).filteredOn((latch) -> latch.name().equals(name)).singleElement()
			.satisfies((latch) -> assertThat(latch.count()).isEqualTo(2));
		assertThat(this.other.latches()).extracting(RedisCountDownLatch::name).contains(name);
	}

	@Test
	void readsTheLatchAnotherInstanceUsesWithoutListingIt() {
		String name = this.redis.unique("read");
		assertThat(this.registry.count(name)).as("not set").isEqualTo(-1);
		assertThat(this.other.getCountDownLatch(name).trySetCount(2)).isTrue();
		assertThat(this.registry.count(name)).isEqualTo(2);
		assertThat(this.registry.latches()).extracting(RedisCountDownLatch::name).doesNotContain(name);
	}

	@Test
	void aLatchThatIsNotSetReleasesNobody() throws Exception {
		String name = this.redis.unique("unset");
		RedisCountDownLatch latch = this.registry.getCountDownLatch(name);
		assertThat(latch.countDown()).isEqualTo(-1);
		assertThat(latch.await(Duration.ofMillis(100))).isFalse();
		assertThat(latch.awaitAsync(Duration.ofMillis(100)).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
	}

	@Test
	void waitersOnEveryInstanceAreReleasedWhenZeroIsReachedNeverBefore() throws Exception {
		String name = this.redis.unique("release");
		String intents = "{" + name + "}:intents";
		int count = 6;
		assertThat(this.registry.getCountDownLatch(name).trySetCount(count)).isTrue();
		ExecutorService executor = Executors.newCachedThreadPool();
		CountDownLatch waiting = new CountDownLatch(4);
		List<CompletableFuture<Long>> waiters = new ArrayList<>();
		try {
			for (int i = 0; i < 4; i++) {
				LatchRegistry instance = (i % 2 == 0) ? this.registry : this.other;
				waiters.add(CompletableFuture.supplyAsync(() -> {
					waiting.countDown();
					try {
						assertThat(instance.getCountDownLatch(name).await(Duration.ofSeconds(30))).isTrue();
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
					return intentsNoted(intents);
				}, executor));
				waiters.add(instance.getCountDownLatch(name).awaitAsync(Duration.ofSeconds(30)).toCompletableFuture()
					.thenApplyAsync((open) -> {
						assertThat(open).isTrue();
						return intentsNoted(intents);
					}, executor));
			}
			assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
			List<CompletableFuture<?>> counters = new ArrayList<>();
			for (int i = 0; i < count - 1; i++) {
				LatchRegistry instance = (i % 2 == 0) ? this.other : this.registry;
				counters.add(CompletableFuture.runAsync(() -> countDownWithIntent(instance, name, intents), executor));
			}
			CompletableFuture.allOf(counters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			// One count-down short: two poll intervals pass and nobody is released.
			CompletionStageWaiter.notDoneWithin(CompletableFuture.anyOf(waiters.toArray(CompletableFuture[]::new)),
					Duration.ofMillis(400));
			countDownWithIntent(this.registry, name, intents);
			for (CompletableFuture<Long> waiter : waiters) {
				assertThat(waiter.get(30, TimeUnit.SECONDS)).as("count-downs begun when released").isEqualTo(count);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void countDownWithIntent(LatchRegistry instance, String name, String intents) {
		try (RedisConnection connection = this.redis.connections().getConnection()) {
			connection.stringCommands().incr(intents.getBytes(StandardCharsets.UTF_8));
			connection.keyCommands().expire(intents.getBytes(StandardCharsets.UTF_8), 600);
		}
		instance.getCountDownLatch(name).countDown();
	}

	private long intentsNoted(String intents) {
		try (RedisConnection connection = this.redis.connections().getConnection()) {
			byte[] value = connection.stringCommands().get(intents.getBytes(StandardCharsets.UTF_8));
			return (value != null) ? Long.parseLong(new String(value)) : 0;
		}
	}

	@Test
	void aReplayedCountDownCountsOnce() {
		String name = this.redis.unique("replayed");
		RedisCountDownLatch latch = this.registry.getCountDownLatch(name);
		latch.trySetCount(3);
		LatchScripts.Keys keys = new LatchScripts.Keys(KeyNaming.defaults(), name);
		assertThat(this.registry.scripts().countDown(keys, "request-1").toCompletableFuture().join()).isEqualTo(2);
		assertThat(this.registry.scripts().countDown(keys, "request-1").toCompletableFuture().join()).isEqualTo(2);
		assertThat(latch.count()).isEqualTo(2);
	}

	@Test
	void anOpenLatchIsKeptForLateWaitersThenExpires() throws Exception {
		String name = this.redis.unique("opened");
		try (LatchRegistry brief = registry(new LatchSpec(Duration.ofDays(1), Duration.ofMillis(300),
				Duration.ofSeconds(1)), this.listener)) {
			RedisCountDownLatch latch = brief.getCountDownLatch(name);
			latch.trySetCount(1);
			latch.countDown();
			assertThat(this.registry.getCountDownLatch(name).await(Duration.ZERO)).as("late waiter").isTrue();
			awaitCondition("the open latch to expire", Duration.ofSeconds(10), () -> latch.count() == -1);
			assertThat(this.redis.exists(KeyNaming.defaults().key("latch", name, "applied"))).isFalse();
		}
	}

	@Test
	void anAbandonedLatchExpiresWithoutReleasingItsWaiters() throws Exception {
		String name = this.redis.unique("abandoned");
		try (LatchRegistry brief = registry(new LatchSpec(Duration.ofMillis(300), Duration.ofHours(1),
				Duration.ofSeconds(1)), this.listener)) {
			RedisCountDownLatch latch = brief.getCountDownLatch(name);
			latch.trySetCount(2);
			latch.countDown();
			CompletableFuture<Boolean> waiter = latch.awaitAsync(Duration.ofSeconds(1)).toCompletableFuture();
			awaitCondition("the abandoned latch to expire", Duration.ofSeconds(10), () -> latch.count() == -1);
			assertThat(waiter.get(10, TimeUnit.SECONDS)).isFalse();
		}
	}

	/**
	 * A caller whose own deadline ends the stage ({@code orTimeout}) ends the wait at once, while the latch still
	 * counts: the wait leaves the latch's channel (the registry's subscription to it goes, the waiter being its
	 * last) long before its own timeout, and is reported once, as a timeout.
	 */
	@Test
	void aStageTheCallersDeadlineEndsLeavesTheChannelAtOnce() throws Exception {
		String name = this.redis.unique("deadline");
		RedisCountDownLatch latch = this.registry.getCountDownLatch(name);
		assertThat(latch.trySetCount(1)).isTrue();
		CompletableFuture<Boolean> waiter = latch.awaitAsync(Duration.ofMinutes(5)).toCompletableFuture();
		awaitCondition("the async waiter to subscribe", Duration.ofSeconds(10),
				() -> this.registry.signals().subscribedChannels() == 1);
		waiter.orTimeout(1, TimeUnit.MILLISECONDS);
		awaitCondition("the channel left", Duration.ofSeconds(10),
				() -> this.registry.signals().subscribedChannels() == 0);
		awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
				() -> this.listener.events.contains("await " + name + " TIMEOUT"));
		assertThat(latch.count()).as("still counting").isEqualTo(1);
		assertThat(this.listener.events).containsExactly("await " + name + " TIMEOUT");
	}

	/**
	 * A caller that fails the stage itself ({@code completeExceptionally}) ends the wait at once, reported once as
	 * interrupted: the latch opening afterwards finds no wait of this registry to end or report.
	 */
	@Test
	void aStageTheCallerFailsEndsTheWaitAtOnceAsInterrupted() throws Exception {
		String name = this.redis.unique("failed");
		RedisCountDownLatch latch = this.registry.getCountDownLatch(name);
		assertThat(latch.trySetCount(1)).isTrue();
		CompletableFuture<Boolean> waiter = latch.awaitAsync(Duration.ofMinutes(5)).toCompletableFuture();
		awaitCondition("the async waiter to subscribe", Duration.ofSeconds(10),
				() -> this.registry.signals().subscribedChannels() == 1);
		assertThat(waiter.completeExceptionally(new IllegalStateException("The caller gave up"))).isTrue();
		awaitCondition("the channel left", Duration.ofSeconds(10),
				() -> this.registry.signals().subscribedChannels() == 0);
		awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
				() -> this.listener.events.contains("await " + name + " INTERRUPTED"));
		assertThat(this.other.getCountDownLatch(name).countDown()).isZero();
		assertThat(latch.await(Duration.ZERO)).isTrue();
		assertThat(this.listener.events).containsExactly("await " + name + " INTERRUPTED",
				"await " + name + " OPENED");
	}

	/** Records every latch event as text, and each wait's outcome from its observation. */
	static final class RecordingLatchListener implements LatchListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void onCountDown(String latchName, long remaining) {
			this.events.add("down " + latchName + " " + remaining);
		}

		private final Observations observations;

		RecordingLatchListener() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

				@Override
				public boolean supportsContext(Observation.Context context) {
					return context instanceof RedisKitContext observed
							&& observed.observation() == RedisKitObservation.LATCH_AWAIT;
				}

				@Override
				public void onStop(Observation.Context context) {
					RedisKitContext observed = (RedisKitContext) context;
					RecordingLatchListener.this.events
						.add("await " + observed.configuredName() + " " + observed.outcome().toUpperCase(Locale.ROOT));
				}

			});
			this.observations = Observations.of(registry, null);
		}

	}

}

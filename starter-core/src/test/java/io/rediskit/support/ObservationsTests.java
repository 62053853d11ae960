package io.rediskit.support;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Observations}: nothing made when nothing observes, and the documented names, span names and tags when a
 * registry does.
 */
class ObservationsTests {

	@Test
	void withTheNoopRegistryEveryStartIsTheNoopObservation() {
		Observations observations = Observations.of(ObservationRegistry.NOOP, null);
		assertThat(observations).isSameAs(Observations.NOOP);
		assertThat(observations.isNoop()).isTrue();
		assertThat(observations.start(RedisKitObservation.LOCK_WAIT, "orders", "lock")).isSameAs(Observation.NOOP);
		assertThat(observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, "jobs", "caller", Map.of()))
			.isSameAs(Observation.NOOP);
		assertThat(observations.startReceive(RedisKitObservation.QUEUE_HANDLE, "jobs", Map.of()))
			.isSameAs(Observation.NOOP);
		Observations.stop(Observation.NOOP, "acquired", new IllegalStateException("ignored"));
		Observations.stopWithDetail(Observation.NOOP, "hit", "near");
	}

	/**
	 * The promise the primitives' hot paths rely on: with the no-op registry a start and a stop allocate nothing.
	 * One object per call would be at least 16 bytes, 1.6 MB over the calls; the bound leaves room for what the
	 * measurement itself allocates, never for a per-call object.
	 */
	@Test
	void withTheNoopRegistryAStartAndAStopAllocateNothing() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
		Observations observations = Observations.NOOP;
		long thread = Thread.currentThread().getId();
		int calls = 100_000;
		for (int warm = 0; warm < 2; warm++) {
			long before = threads.getThreadAllocatedBytes(thread);
			for (int i = 0; i < calls; i++) {
				Observation observation = observations.start(RedisKitObservation.RATE_LIMIT, "login", "gcra");
				Observations.stop(observation, "allowed");
			}
			long allocated = threads.getThreadAllocatedBytes(thread) - before;
			if (warm == 1) {
				assertThat(allocated).isLessThan(64 * 1024);
			}
		}
	}

	/**
	 * The operation-shaped structures' calls go through {@link ObservedCalls}: with the no-op registry a call
	 * allocates no more than it did before they were observed, when the same piece timed each call for listeners
	 * ({@link #timedForListeners}, as it was, told to a registry without listeners). Each side is measured over
	 * three rounds after warming up and the least of its rounds is kept (compilation only ever removes
	 * allocations); the bound allows less than one object per call.
	 */
	@Test
	void withTheNoopRegistryAnObservedCallAllocatesNoMoreThanBeforeItWasObserved() {
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
		long thread = Thread.currentThread().getId();
		ObservedCalls calls = new ObservedCalls("Unique counter", RedisKitObservation.COUNTER_OPERATION, "visitors",
				() -> Observations.NOOP, LogFactory.getLog(ObservationsTests.class));
		Listeners<Consumer<Duration>> none = Listeners.of("timed", List.of());
		CompletableFuture<Long> reply = CompletableFuture.completedFuture(1L);
		Supplier<CompletionStage<Long>> call = () -> reply;
		int n = 100_000;
		long observed = Long.MAX_VALUE;
		long before = Long.MAX_VALUE;
		for (int round = 0; round < 5; round++) {
			long start = threads.getThreadAllocatedBytes(thread);
			for (int i = 0; i < n; i++) {
				calls.observed("add", call);
			}
			long middle = threads.getThreadAllocatedBytes(thread);
			for (int i = 0; i < n; i++) {
				timedForListeners(none, call);
			}
			long end = threads.getThreadAllocatedBytes(thread);
			if (round >= 2) {
				observed = Math.min(observed, middle - start);
				before = Math.min(before, end - middle);
			}
		}
		assertThat(observed).as("bytes over %d observed calls, %d before they were observed", n, before)
			.isLessThanOrEqualTo(before + 8L * n);
	}

	/** What {@link ObservedCalls} did with a completed call before it was observed: time it, tell the listeners. */
	private static <T> CompletionStage<T> timedForListeners(Listeners<Consumer<Duration>> listeners,
			Supplier<CompletionStage<T>> call) {
		long start = System.nanoTime();
		return call.get().handle((result, failure) -> {
			Duration latency = Duration.ofNanos(System.nanoTime() - start);
			if (failure == null) {
				listeners.notify((listener) -> listener.accept(latency));
				return result;
			}
			throw new CompletionException(Stages.unwrap(failure));
		});
	}

	@Test
	void theRegistrysPredicatesSeeTheObservationsName() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		registry.observationConfig().observationPredicate((name, context) -> !name.equals("rediskit.cache.lookup"));
		Observations observations = Observations.of(registry, null);
		assertThat(observations.start(RedisKitObservation.CACHE_LOOKUP, "users", null).isNoop()).isTrue();
		Observation wait = observations.start(RedisKitObservation.LOCK_WAIT, "orders", "lock");
		assertThat(wait.isNoop()).isFalse();
		Observations.stop(wait, "acquired");
		TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsEqualTo(1);
	}

	@Test
	void anObservationHasItsDocumentedNameSpanNameAndTags() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		Observations observations = Observations.of(registry, null);
		Observation wait = observations.start(RedisKitObservation.LOCK_WAIT, "orders", "fair");
		Observations.stop(wait, "timeout", new IllegalStateException("waited too long"));
		Observation lookup = observations.start(RedisKitObservation.CACHE_LOOKUP, "users", null);
		Observations.stopWithDetail(lookup, "miss", "none");
		Observation enqueue = observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, "jobs", "caller",
				Map.of("a", "b"));
		Observations.stop(enqueue, "enqueued");
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("rediskit.lock.wait")
			.that()
			.hasContextualNameEqualTo("lock wait orders")
			.hasLowCardinalityKeyValue("name", "orders")
			.hasLowCardinalityKeyValue("kind", "fair")
			.hasLowCardinalityKeyValue("outcome", "timeout")
			.hasError();
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("rediskit.cache.lookup")
			.that()
			.hasLowCardinalityKeyValue("tier", "none")
			.hasLowCardinalityKeyValue("outcome", "miss");
		TestObservationRegistryAssert.assertThat(registry)
			.hasObservationWithNameEqualTo("rediskit.queue.enqueue")
			.that()
			.hasContextualNameEqualTo("queue enqueue jobs")
			.hasLowCardinalityKeyValue("name", "jobs")
			.hasLowCardinalityKeyValue("source", "caller")
			.doesNotHaveLowCardinalityKeyValueWithKey("kind");
	}

}

package io.rediskit.support;

import java.lang.management.ManagementFactory;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
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
		assertThat(observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, "jobs", Map.of()))
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
		Observation enqueue = observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, "jobs", Map.of("a", "b"));
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
			.doesNotHaveLowCardinalityKeyValueWithKey("kind");
	}

}

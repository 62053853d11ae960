package io.rediskit.lock;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.support.Observations;

/** Shared pieces of the semaphore tests. */
final class SemaphoreTesting {

	private SemaphoreTesting() {
	}

	/** Records every semaphore event as text, for assertions, and its waits and released holds when observed. */
	static final class RecordingListener implements SemaphoreListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		private final LockTesting.RecordedObservations observed = new LockTesting.RecordedObservations(this.events);

		/** @return observations that record the semaphore's waits and released holds into {@code events} */
		Observations observations() {
			return this.observed.observations();
		}

		/** See {@link LockTesting.RecordedObservations#onNextHoldStart}. */
		void onNextHoldStart(Runnable hook) {
			this.observed.onNextHoldStart(hook);
		}

		/** See {@link LockTesting.RecordedObservations#onNextEnd}. */
		void onNextEnd(Runnable hook) {
			this.observed.onNextEnd(hook);
		}

		@Override
		public void onRenewal(String lockName, RenewalResult result) {
			this.events.add("renewal " + lockName + " " + result);
		}

		@Override
		public void onLeaseLost(String lockName, long fencingToken) {
			this.events.add("lost " + lockName);
		}

		long count(String prefix) {
			return this.events.stream().filter((event) -> event.startsWith(prefix)).count();
		}

	}

}

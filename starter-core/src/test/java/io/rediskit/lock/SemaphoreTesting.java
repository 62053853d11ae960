package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Shared pieces of the semaphore tests. */
final class SemaphoreTesting {

	private SemaphoreTesting() {
	}

	/** Records every semaphore event as text, for assertions. */
	static final class RecordingListener implements SemaphoreListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public void onAcquire(String lockName, AcquireResult result, Duration waited) {
			this.events.add("acquire " + lockName + " " + result);
		}

		@Override
		public void onRelease(String lockName, Duration held) {
			this.events.add("release " + lockName);
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

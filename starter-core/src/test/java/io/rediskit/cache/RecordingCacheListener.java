package io.rediskit.cache;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Remembers every event, as {@code <event> <cache> [detail]}. */
final class RecordingCacheListener implements CacheListener {

	final List<String> events = new CopyOnWriteArrayList<>();

	@Override
	public void onHit(String cacheName, CacheTier tier) {
		this.events.add("hit " + cacheName + " " + tier.tag());
	}

	@Override
	public void onMiss(String cacheName) {
		this.events.add("miss " + cacheName);
	}

	@Override
	public void onLoad(String cacheName, Duration time, boolean success) {
		this.events.add("load " + cacheName + " " + success);
	}

	@Override
	public void onWait(String cacheName, Duration time, WaitOutcome outcome) {
		this.events.add("wait " + cacheName + " " + outcome.tag());
	}

	@Override
	public void onUndecodable(String cacheName, RuntimeException failure) {
		this.events.add("undecodable " + cacheName);
	}

	@Override
	public void onOutage(String cacheName, RuntimeException failure) {
		this.events.add("outage " + cacheName);
	}

	@Override
	public void onNearInvalidation(String cacheName) {
		this.events.add("invalidation " + cacheName);
	}

	@Override
	public void onFiltered(String cacheName) {
		this.events.add("filtered " + cacheName);
	}

	@Override
	public void onUnfiltered(String cacheName) {
		this.events.add("unfiltered " + cacheName);
	}

	@Override
	public void onRefresh(String cacheName, boolean expired) {
		this.events.add("refresh " + cacheName + " " + (expired ? "stale" : "early"));
	}

	long count(String event) {
		return this.events.stream().filter(event::equals).count();
	}

}

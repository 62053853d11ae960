package io.rediskit.cache;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;

import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;

/**
 * Early refresh and stale-while-revalidate of one cache (see {@link CacheSpec}): a read through the loader that
 * found an entry tells it how long the entry has left; it reloads the entry in the background, on the manager's
 * executor, when the entry is past its TTL or, by chance (XFetch), close to it. A reload takes the entry's load
 * lease first ({@code lease.lua}), so one instance at a time reloads it, and none once the entry was rewritten
 * since the decision; it then loads as the lease holder, its result stored and announced like any load. Its
 * failure is logged (one warning per interval) and counted, never thrown to a caller.
 */
final class CacheRefresh {

	private final CacheStore store;

	private final Executor executor;

	private final Reload reload;

	private final ThrottledLog failures;

	/** The keys this instance is reloading in the background: one reload per key at a time. */
	private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

	/**
	 * @param executor runs the reloads
	 * @param reload loads as the holder of the lease this piece took
	 */
	CacheRefresh(CacheStore store, Executor executor, Duration logInterval, Reload reload) {
		this.store = store;
		this.executor = executor;
		this.reload = reload;
		this.failures = new ThrottledLog(LogFactory.getLog(RedisKitCache.class), logInterval, "Cache '" + store.name()
				+ "': a reload in the background failed; the entry keeps its value until it expires");
	}

	/** @return whether the cache refreshes entries, so that its reads need each entry's time left */
	boolean enabled() {
		CacheSpec spec = this.store.spec();
		return spec.earlyRefresh() > 0 || !spec.staleWhileRevalidate().isZero();
	}

	/**
	 * XFetch: reloads with probability {@code exp(-left / (beta * delta))}, so that under load one read reloads
	 * shortly before the expiry, and a read far from it almost never does.
	 * @param leftMillis the ms the entry has before its TTL ends ({@code Long.MAX_VALUE} if unknown)
	 */
	void early(Object key, String id, Callable<?> loader, long leftMillis) {
		double beta = this.store.spec().earlyRefresh();
		if (beta <= 0 || leftMillis == Long.MAX_VALUE) {
			return;
		}
		double deltaMillis = Math.max(1, this.store.averageLoadNanos() / 1e6);
		if (-deltaMillis * beta * Math.log(ThreadLocalRandom.current().nextDouble()) >= leftMillis) {
			inBackground(key, id, loader, false,
					leftMillis + this.store.spec().staleWhileRevalidate().toMillis());
		}
	}

	/**
	 * Reloads an entry past its TTL, served stale meanwhile.
	 * @param pttl the entry's PTTL when it was read
	 */
	void expired(Object key, String id, Callable<?> loader, long pttl) {
		inBackground(key, id, loader, true, pttl);
	}

	/**
	 * Reloads an entry on the manager's executor, if this instance is not reloading it already.
	 * @param pttl the entry's PTTL when the reload was decided: a reload starting after the entry was rewritten
	 * (its PTTL is longer) is not needed
	 */
	private void inBackground(Object key, String id, Callable<?> loader, boolean expired, long pttl) {
		if (!this.refreshing.add(id)) {
			return;
		}
		try {
			this.executor.execute(() -> {
				try {
					refresh(key, id, loader, expired, pttl);
				}
				finally {
					this.refreshing.remove(id);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			this.refreshing.remove(id);
			this.failures.warn(ex);
		}
	}

	/**
	 * Takes the entry's load lease unless another instance holds it (then that one reloads) or the entry was
	 * rewritten since the decision; loads and stores.
	 */
	private void refresh(Object key, String id, Callable<?> loader, boolean expired, long pttl) {
		byte[] token = CacheScripts.newToken();
		try {
			if (!this.store.scripts().lease(id, token, pttl)) {
				return;
			}
			this.store.refreshed(expired);
			this.reload.reload(key, id, loader, token);
		}
		catch (RuntimeException ex) {
			// Nobody asked for this read: whatever went wrong is logged and counted, never thrown.
			if (RedisFailures.isUnavailable(ex)) {
				this.store.unreachable(ex);
			}
			this.failures.warn(ex);
		}
	}

	/** Loads an entry as the holder of its lease, and stores and announces the outcome. */
	@FunctionalInterface
	interface Reload {

		/**
		 * @param token the lease's token
		 * @throws RuntimeException the loader's failure, after it was announced
		 */
		void reload(Object key, String id, Callable<?> loader, byte[] token);

	}

}

package io.rediskit.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.ratelimit.RateLimitScripts.Evaluation;

/**
 * Load on one key of one limiter while a failover happens: every admission with the server time of its
 * decision (for {@link AdmissionChecker}), the decisions the failure policy made instead of Redis, and the
 * client times of Redis decisions (for the longest gap, the time until decisions came from Redis again).
 */
public final class LimiterFailoverLoad {

	private final RedisRateLimiter limiter;

	private final String key;

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final List<Thread> threads = new ArrayList<>();

	private final List<AdmissionChecker.Admission> admissions = new ArrayList<>();

	private final List<Long> redisDecisionNanos = new ArrayList<>();

	private final AtomicLong fromPolicy = new AtomicLong();

	private final AtomicLong thrown = new AtomicLong();

	private LimiterFailoverLoad(RedisRateLimiter limiter, String key) {
		this.limiter = limiter;
		this.key = key;
	}

	/**
	 * Starts the load.
	 * @param limiter the limiter, from a {@link RateLimiterRegistry}
	 * @param key the one key every thread asks for
	 * @param threads how many threads
	 * @return the running load
	 */
	public static LimiterFailoverLoad start(RateLimiter limiter, String key, int threads) {
		LimiterFailoverLoad load = new LimiterFailoverLoad((RedisRateLimiter) limiter, key);
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(load::run, "limiter-load-" + t);
			load.threads.add(thread);
			thread.start();
		}
		return load;
	}

	/**
	 * The Redis key the load's decisions are stored under, to find the master that holds it.
	 * @param limiter the limiter
	 * @param key the key asked for
	 * @return the Redis key
	 */
	public static String redisKey(RateLimiter limiter, String key) {
		return RateLimitTesting.redisKey(limiter.spec().algorithm(), limiter.name(), key);
	}

	private void run() {
		while (this.running.get()) {
			try {
				Evaluation evaluation = this.limiter.evaluate(this.key, 1, null);
				if (evaluation.decision().fromFailurePolicy()) {
					this.fromPolicy.incrementAndGet();
					continue;
				}
				synchronized (this) {
					this.redisDecisionNanos.add(System.nanoTime());
					if (evaluation.decision().allowed()) {
						this.admissions.add(new AdmissionChecker.Admission(evaluation.serverMicros(), 1));
					}
				}
			}
			catch (RuntimeException ex) {
				this.thrown.incrementAndGet();
			}
		}
	}

	/**
	 * Stops the load and sums it up.
	 * @param failoverNanos when the failover was started ({@link System#nanoTime()})
	 * @return the figures
	 */
	public Result stop(long failoverNanos) throws InterruptedException {
		this.running.set(false);
		for (Thread thread : this.threads) {
			thread.join();
		}
		synchronized (this) {
			List<Long> times = new ArrayList<>(this.redisDecisionNanos);
			times.sort(null);
			long gap = 0;
			long gapEnd = failoverNanos;
			for (int i = 1; i < times.size(); i++) {
				if (times.get(i) - times.get(i - 1) > gap) {
					gap = times.get(i) - times.get(i - 1);
					gapEnd = times.get(i);
				}
			}
			boolean servedAfter = !times.isEmpty() && times.get(times.size() - 1) > failoverNanos;
			long recoveryMillis = servedAfter ? Math.max(0, gapEnd - failoverNanos) / 1_000_000 : -1;
			long gapMillis = gap / 1_000_000;
			AdmissionChecker.Result check = AdmissionChecker.check(this.limiter.spec(), this.admissions);
			return new Result(this.limiter.spec().algorithm(), times.size(), check.admitted(), check.ratio(),
					this.fromPolicy.get(), this.thrown.get(), recoveryMillis, gapMillis);
		}
	}

	/**
	 * What the load saw.
	 * @param algorithm the algorithm
	 * @param redisDecisions decisions Redis made
	 * @param admitted permits Redis granted
	 * @param worstRatio admitted / bound in the worst window (above 1: admissions beyond the bound)
	 * @param fromPolicy decisions the failure policy made
	 * @param thrown calls that threw
	 * @param recoveryMillis from the failover's start to the first Redis decision after it
	 * @param gapMillis longest stretch without a Redis decision around the failover
	 */
	public record Result(RateLimitAlgorithm algorithm, long redisDecisions, long admitted, double worstRatio,
			long fromPolicy, long thrown, long recoveryMillis, long gapMillis) {

		/** @return whether the bound held in every window */
		public boolean boundHeld() {
			return this.worstRatio <= 1 + 1e-6;
		}

	}

}

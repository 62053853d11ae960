package io.rediskit.lock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.rediskit.ratelimit.LimiterFailoverLoad;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ReplicaWait;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.Topology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a failover ({@code kill -9} of the master holding the keys) costs, measured under load on a cluster and
 * a Sentinel group of their own, with and without {@link LockSpec#replicaWait()}. The lock: 8 threads over two
 * registries take one lock over and over and write to an in-JVM fenced resource; an independent checker counts
 * overlapping holds, token regressions and rejected writes. Each limiter algorithm: 3 threads on one key of the
 * same master; {@code AdmissionChecker} finds admissions beyond the bound.
 * <p>
 * The figures are printed and appended to {@code target/failover-figures.md}. CI runs a short load on four of
 * the eight cases; set {@code -Drediskit.failover.all=true -Drediskit.failover.seconds=20} for the longer run of
 * all eight whose figures are in {@code docs/reliability.md}.
 * Asserted is only what is guaranteed: fencing tokens never go backwards, locking and every limiter work again
 * within 30 s of the kill (the killed node is restarted as soon as the new master serves, as an operator's
 * supervisor would), and with the replica wait no two holds overlap.
 */
class FailoverMeasurementTests {

	private static final long LOAD_MILLIS = Long.getLong("rediskit.failover.seconds", 2) * 1000;

	private static final int LOCK_THREADS = 8;

	private static final int LIMITER_THREADS = 3;

	private static final long LONG_HOLD_MILLIS = 6000;

	private static final long LIMIT = 100;

	private static final Duration LIMIT_PERIOD = Duration.ofSeconds(10);

	/**
	 * Every topology, fault and replica-wait setting with {@code -Drediskit.failover.all=true} (about 200 s);
	 * by default one case per fault and setting, alternating the topology (half the time, for CI's budget).
	 */
	static Stream<Arguments> failovers() {
		Stream<Arguments> every = Stream.of(Arguments.of(Topology.CLUSTER, false, Fault.KILL),
				Arguments.of(Topology.CLUSTER, false, Fault.KILL_LAGGING),
				Arguments.of(Topology.CLUSTER, true, Fault.KILL_LAGGING),
				Arguments.of(Topology.CLUSTER, false, Fault.COORDINATED),
				Arguments.of(Topology.SENTINEL, false, Fault.KILL),
				Arguments.of(Topology.SENTINEL, false, Fault.KILL_LAGGING),
				Arguments.of(Topology.SENTINEL, true, Fault.KILL_LAGGING),
				Arguments.of(Topology.SENTINEL, false, Fault.COORDINATED));
		if (Boolean.getBoolean("rediskit.failover.all")) {
			return every;
		}
		return Stream.of(Arguments.of(Topology.CLUSTER, false, Fault.KILL),
				Arguments.of(Topology.SENTINEL, false, Fault.KILL_LAGGING),
				Arguments.of(Topology.CLUSTER, true, Fault.KILL_LAGGING),
				Arguments.of(Topology.SENTINEL, false, Fault.COORDINATED));
	}

	@ParameterizedTest(name = "{0}, replica wait {1}, {2}")
	@MethodSource("failovers")
	void failingOverUnderLoad(Topology topology, boolean replicaWait, Fault fault) throws Exception {
		boolean laggingReplica = fault == Fault.KILL_LAGGING;
		try (RedisTopology redis = RedisTopology.start(topology, Duration.ofSeconds(2))) {
			LockSpec spec = LockSpec.defaults().withWatchdogTimeout(Duration.ofSeconds(3));
			if (replicaWait) {
				spec = spec.withReplicaWait(ReplicaWait.failing(1, Duration.ofMillis(100)));
			}
			String lockName = "failover";
			RedisServerProcess master = redis.masterFor(KeyNaming.defaults().key("lock", lockName));
			RateLimiterRegistry limiters = new RateLimiterRegistry(redis.connections(), KeyNaming.defaults(),
					RateLimitListener.NONE);
			try (LockRegistry first = registry(redis, spec); LockRegistry second = registry(redis, spec)) {
				LockLoad lockLoad = new LockLoad(0, first.getLock(lockName), second.getLock(lockName));
				String longName = nameOn(redis, master, "long");
				LockLoad longLoad = new LockLoad(LONG_HOLD_MILLIS, first.getLock(longName), second.getLock(longName));
				List<LimiterFailoverLoad> limiterLoads = new ArrayList<>();
				lockLoad.start(LOCK_THREADS);
				if (!laggingReplica) {
					startLimiters(redis, master, limiters, limiterLoads);
				}
				Thread.sleep(LOAD_MILLIS);
				RedisServerProcess replica = (topology == Topology.CLUSTER) ? redis.cluster().replicaOf(master)
						: redis.sentinel().replicas().get(0);
				if (laggingReplica) {
					// The replica stops receiving while holds of a long-running task start and the limiters count:
					// what the master acknowledges now is lost when it dies.
					replica.pause();
					// 16 MB ahead in the replication stream fill the socket buffers, so what follows stays in the
					// master's output buffer and dies with it, as on a replica that lags for real.
					String filler = "x".repeat(1 << 20);
					for (int i = 0; i < 16; i++) {
						master.command("SET", KeyNaming.defaults().key("lock", longName, "filler" + i), filler, "PX", "60000");
					}
					long paused = System.nanoTime();
					longLoad.start(2);
					startLimiters(redis, master, limiters, limiterLoads);
					long deadline = paused + TimeUnit.MILLISECONDS.toNanos(1500);
					while (!longLoad.heldSince(paused) && System.nanoTime() < deadline) {
						Thread.sleep(10);
					}
					Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
				}
				long killed = System.nanoTime();
				RedisServerProcess promoted;
				if (fault == Fault.COORDINATED) {
					promoted = (topology == Topology.CLUSTER) ? redis.cluster().failover(master) : redis.sentinel().failover();
				}
				else {
					master.kill();
					if (laggingReplica) {
						replica.resume();
					}
					if (topology == Topology.CLUSTER) {
						redis.cluster().awaitPromoted(replica, master);
						promoted = replica;
					}
					else {
						promoted = redis.sentinel().awaitNewMaster(master);
					}
				}
				long promotedMillis = (System.nanoTime() - killed) / 1_000_000;
				if (fault != Fault.COORDINATED && topology == Topology.CLUSTER) {
					redis.cluster().restart(master);
				}
				else if (fault != Fault.COORDINATED) {
					redis.sentinel().restart(master);
				}
				long rejoinedMillis = (System.nanoTime() - killed) / 1_000_000;
				assertThat(promoted).isNotSameAs(master);
				Thread.sleep(LOAD_MILLIS);
				List<LimiterFailoverLoad.Result> limits = new ArrayList<>();
				for (LimiterFailoverLoad load : limiterLoads) {
					limits.add(load.stop(killed));
				}
				LockLoad.Result lock = lockLoad.stop(killed);
				LockLoad.Result longLock = longLoad.stop(killed);
				report(topology, replicaWait, fault, promotedMillis, rejoinedMillis, lock, longLock, limits);

				assertThat(lock.tokenRegressions()).as("fencing tokens that went backwards").isZero();
				assertThat(longLock.tokenRegressions()).as("fencing tokens that went backwards").isZero();
				assertThat(longLock.acceptedStaleWrites()).as("writes fenced with a stale token that got through").isZero();
				assertThat(lock.recoveryMillis()).as("ms until locking worked again").isBetween(0L, 30_000L);
				if (replicaWait) {
					assertThat(lock.overlaps() + longLock.overlaps()).as("overlapping holds with the replica wait").isZero();
				}
				for (LimiterFailoverLoad.Result limit : limits) {
					assertThat(limit.recoveryMillis()).as("%s: ms until Redis decided again", limit.algorithm())
						.isBetween(0L, 30_000L);
				}
				try (Lease lease = first.getLock(lockName).acquire(Duration.ofSeconds(10))) {
					assertThat(lease.fencingToken()).isGreaterThan(lock.maxToken());
				}
			}
		}
	}

	private static void startLimiters(RedisTopology redis, RedisServerProcess master, RateLimiterRegistry limiters,
			List<LimiterFailoverLoad> loads) {
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			RateLimiter limiter = limiters.create(algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-'),
					RateLimitSpec.of(algorithm, LIMIT, LIMIT_PERIOD));
			loads.add(LimiterFailoverLoad.start(limiter, keyOn(redis, master, limiter), LIMITER_THREADS));
		}
	}

	/** A lock name whose key lives on the given master. */
	private static String nameOn(RedisTopology redis, RedisServerProcess master, String base) {
		for (int i = 0;; i++) {
			if (redis.masterFor(KeyNaming.defaults().key("lock", base + i)) == master) {
				return base + i;
			}
		}
	}

	private static LockRegistry registry(RedisTopology redis, LockSpec spec) {
		return new LockRegistry(TopologyScripts.of(redis), redis.connections(), KeyNaming.defaults(), spec, List.of(),
				Clock.systemUTC());
	}

	/** A key of the limiter that lives on the given master, so that the kill hits the limiter too. */
	private static String keyOn(RedisTopology redis, RedisServerProcess master, RateLimiter limiter) {
		for (int i = 0;; i++) {
			String key = "k" + i;
			if (redis.masterFor(LimiterFailoverLoad.redisKey(limiter, key)) == master) {
				return key;
			}
		}
	}

	private static void report(Topology topology, boolean replicaWait, Fault fault, long promotedMillis,
			long rejoinedMillis, LockLoad.Result lock, LockLoad.Result longLock, List<LimiterFailoverLoad.Result> limits)
			throws IOException {
		String scenario = String.format("| %s | %s | %s", topology.name().toLowerCase(Locale.ROOT),
				fault.description, replicaWait ? "WAIT 1" : "off");
		StringBuilder text = new StringBuilder();
		text.append(String.format("%s | lock, short holds | %d holds, %d overlapping, %d stale writes rejected, %d token "
				+ "regressions, %d not replicated | %d ms (new master after %d ms, old one back as replica after %d ms) |%n",
				scenario, lock.holds(), lock.overlaps(), lock.rejectedWrites(), lock.tokenRegressions(),
				lock.notReplicated(), lock.recoveryMillis(), promotedMillis, rejoinedMillis));
		if (fault == Fault.KILL_LAGGING) {
			text.append(String.format("%s | lock, %d s holds | %d holds, %d overlapping, %d stale writes rejected, %d "
					+ "token regressions, %d not replicated | |%n", scenario, LONG_HOLD_MILLIS / 1000, longLock.holds(),
					longLock.overlaps(), longLock.rejectedWrites(), longLock.tokenRegressions(),
					longLock.notReplicated()));
		}
		for (LimiterFailoverLoad.Result limit : limits) {
			text.append(String.format("%s | %s | %d admitted, worst window %.2f of the bound, %d policy decisions | %d ms |%n",
					scenario, limit.algorithm(), limit.admitted(), limit.worstRatio(), limit.fromPolicy(),
					limit.recoveryMillis()));
		}
		System.out.print(text);
		Files.writeString(Path.of("target", "failover-figures.md"), text, StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
	}

	/** How the master is replaced. */
	enum Fault {

		/** {@code kill -9} of the master; its replica is promoted. */
		KILL("kill -9"),

		/** {@code kill -9} of the master while its replica lags behind. */
		KILL_LAGGING("kill -9, replica lagging"),

		/** {@code CLUSTER FAILOVER} on the replica or {@code SENTINEL FAILOVER}: the replica catches up first. */
		COORDINATED("CLUSTER/SENTINEL FAILOVER");

		final String description;

		Fault(String description) {
			this.description = description;
		}

	}

	/** Threads taking one lock over two registries, with an independent record of every hold. */
	static final class LockLoad {

		private final RedisLock[] locks;

		private final long holdMillis;

		private volatile long lastAcquiredNanos;

		private long acceptedStaleWrites;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final List<Thread> threads = new ArrayList<>();

		private final List<Hold> holds = new ArrayList<>();

		private final AtomicLong notReplicated = new AtomicLong();

		private final AtomicLong errors = new AtomicLong();

		private long resourceToken;

		private long rejectedWrites;

		LockLoad(long holdMillis, RedisLock... locks) {
			this.holdMillis = holdMillis;
			this.locks = locks;
		}

		boolean heldSince(long nanos) {
			return this.lastAcquiredNanos - nanos > 0;
		}

		void start(int threads) {
			for (int t = 0; t < threads; t++) {
				RedisLock lock = this.locks[t % this.locks.length];
				Thread thread = new Thread(() -> run(lock), "lock-load-" + t);
				this.threads.add(thread);
				thread.start();
			}
		}

		private void run(RedisLock lock) {
			while (this.running.get()) {
				Lease lease;
				try {
					lease = lock.acquire(Duration.ofMillis((this.holdMillis > 0) ? 10_000 : 500));
				}
				catch (LockNotReplicatedException ex) {
					this.notReplicated.incrementAndGet();
					continue;
				}
				catch (LockNotAcquiredException ex) {
					continue;
				}
				catch (RuntimeException ex) {
					this.errors.incrementAndGet();
					continue;
				}
				long start = System.nanoTime();
				this.lastAcquiredNanos = start;
				write(lease.fencingToken());
				if (this.holdMillis > 0) {
					try {
						Thread.sleep(this.holdMillis);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				write(lease.fencingToken());
				long end = System.nanoTime();
				synchronized (this) {
					this.holds.add(new Hold(lease.fencingToken(), start, end));
				}
				try {
					lease.close();
				}
				catch (RuntimeException ex) {
					// Lease lost or Redis unreachable: the hold is recorded either way.
					this.errors.incrementAndGet();
				}
			}
		}

		/** The fenced resource: accepts a write only with a token above every token it accepted. */
		private synchronized void write(long token) {
			if (token < this.resourceToken) {
				this.rejectedWrites++;
				return;
			}
			if (token == this.resourceToken && this.lastWriter != Thread.currentThread()) {
				// Two holders with one token: fencing cannot tell them apart.
				this.acceptedStaleWrites++;
			}
			this.resourceToken = token;
			this.lastWriter = Thread.currentThread();
		}

		private @Nullable Thread lastWriter;

		Result stop(long failoverNanos) throws InterruptedException {
			this.running.set(false);
			for (Thread thread : this.threads) {
				thread.join();
			}
			synchronized (this) {
				List<Hold> sorted = new ArrayList<>(this.holds);
				sorted.sort(Comparator.comparingLong(Hold::start));
				long overlaps = 0;
				long regressions = 0;
				long latestEnd = Long.MIN_VALUE;
				long maxToken = 0;
				long gap = 0;
				long gapEnd = failoverNanos;
				for (int i = 0; i < sorted.size(); i++) {
					Hold hold = sorted.get(i);
					if (i > 0 && hold.start() < latestEnd) {
						overlaps++;
					}
					if (hold.token() < maxToken) {
						regressions++;
					}
					if (i > 0 && hold.start() - sorted.get(i - 1).start() > gap) {
						gap = hold.start() - sorted.get(i - 1).start();
						gapEnd = hold.start();
					}
					latestEnd = Math.max(latestEnd, hold.end());
					maxToken = Math.max(maxToken, hold.token());
				}
				boolean heldAfter = !sorted.isEmpty() && sorted.get(sorted.size() - 1).start() > failoverNanos;
				long recovery = heldAfter ? Math.max(0, gapEnd - failoverNanos) / 1_000_000 : -1;
				return new Result(sorted.size(), overlaps, this.rejectedWrites, regressions, this.notReplicated.get(),
						this.errors.get(), recovery, maxToken, this.acceptedStaleWrites);
			}
		}

		record Hold(long token, long start, long end) {
		}

		record Result(long holds, long overlaps, long rejectedWrites, long tokenRegressions, long notReplicated,
				long errors, long recoveryMillis, long maxToken, long acceptedStaleWrites) {
		}

	}

}

package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.HostileNames;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static io.rediskit.lock.LockTesting.fencedWrite;
import static io.rediskit.lock.LockTesting.unsafeIncrement;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the lock promises on every topology (run once per {@link Topology}): acquire and release,
 * reentrancy, waits that time out, increasing fencing tokens, watchdog renewal, asynchronous acquisition and
 * mutual exclusion under concurrency, checked by a non-atomic counter and a fenced resource in Redis.
 */
class LockContractTests extends TopologyContract {

	LockTesting.RecordingListener listener;

	LockRegistry registry;

	ExecutorService executor;

	@BeforeEach
	void setUpRegistry() {
		this.listener = new LockTesting.RecordingListener();
		this.registry = registry(LockSpec.defaults());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void closeRegistry() {
		this.executor.shutdownNow();
		this.registry.close();
	}

	LockRegistry registry(LockSpec spec) {
		return new LockRegistry(TopologyScripts.of(this.redis), this.redis.connections(), KeyNaming.defaults(), spec,
				List.of(this.listener), Clock.systemUTC());
	}

	static String key(String name) {
		return KeyNaming.defaults().key("lock", name);
	}

	@Test
	void acquiresAndReleases() throws Exception {
		String name = this.redis.unique("orders");
		RedisLock lock = this.registry.getLock(name);
		lock.lock();
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(this.redis.exists(key(name))).as("the key on the server that owns its slot").isTrue();
		assertThat(this.executor.submit(() -> lock.tryLock()).get(10, TimeUnit.SECONDS)).as("another thread").isFalse();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(this.redis.exists(key(name))).isFalse();
		assertThat(this.executor.submit(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		}).get(10, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
	}

	@Test
	void isReentrant() {
		String name = this.redis.unique("reentrant");
		RedisLock lock = this.registry.getLock(name);
		lock.lock();
		lock.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		long token = lock.getFencingToken();
		lock.unlock();
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.getFencingToken()).as("reentry keeps the token").isEqualTo(token);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(this.redis.exists(key(name))).isFalse();
	}

	@Test
	void aWaitTimesOutWhileAnotherHolds() throws Exception {
		String name = this.redis.unique("contended");
		try (RedisLock.Lease held = this.registry.getLock(name).acquire(Duration.ZERO)) {
			assertThat(held.isActive()).isTrue();
			Future<Long> waited = this.executor.submit(() -> {
				long started = System.nanoTime();
				assertThat(this.registry.getLock(name).tryLock(Duration.ofMillis(300))).isFalse();
				return System.nanoTime() - started;
			});
			assertThat(Duration.ofNanos(waited.get(10, TimeUnit.SECONDS))).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> this.registry.getLock(name).acquire(Duration.ofMillis(50)));
		}
		assertThat(this.listener.count("acquire " + name + " TIMEOUT")).as("the wait and the acquire").isEqualTo(2);
	}

	@Test
	void fencingTokensIncreaseAcrossHoldersAndRegistries() {
		String name = this.redis.unique("fenced");
		String resource = this.redis.unique("resource");
		long last = 0;
		try (LockRegistry other = registry(LockSpec.defaults())) {
			for (int i = 0; i < 10; i++) {
				LockRegistry holder = (i % 2 == 0) ? this.registry : other;
				try (RedisLock.Lease lease = holder.getLock(name).acquire(Duration.ofSeconds(5))) {
					assertThat(lease.fencingToken()).isGreaterThan(last);
					assertThat(fencedWrite(this.redis.connections(), resource, lease.fencingToken(), "v" + i)).isTrue();
					last = lease.fencingToken();
				}
			}
		}
		assertThat(fencedWrite(this.redis.connections(), resource, last, "stale")).as("a stale token").isFalse();
	}

	@Test
	void theWatchdogRenewsALeaseWhileItIsHeld() throws Exception {
		String name = this.redis.unique("renewed");
		try (LockRegistry renewing = registry(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(900)))) {
			RedisLock.Lease lease = renewing.getLock(name).acquire(Duration.ZERO);
			// Three renewals: the lock outlived three times its 900 ms lease only because the watchdog extended it.
			awaitCondition("three renewals", Duration.ofSeconds(20),
					() -> this.listener.count("renewal " + name + " RENEWED") >= 3);
			assertThat(lease.isActive()).isTrue();
			assertThat(this.redis.exists(key(name))).isTrue();
			assertThat(this.executor.submit(() -> this.registry.getLock(name).tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
			lease.close();
			assertThat(this.listener.count("lost " + name)).isZero();
		}
		assertThat(this.redis.exists(key(name))).isFalse();
	}

	@Test
	void acquiresAsynchronouslyWhenTheHolderReleases() throws Exception {
		String name = this.redis.unique("async");
		RedisLock.Lease held = this.registry.getLock(name).acquireAsync(Duration.ZERO).toCompletableFuture()
			.get(10, TimeUnit.SECONDS);
		CompletableFuture<RedisLock.Lease> waiter = this.registry.getLock(name)
			.acquireAsync(Duration.ofSeconds(20))
			.toCompletableFuture();
		assertThat(waiter).isNotDone();
		held.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		RedisLock.Lease lease = waiter.get(20, TimeUnit.SECONDS);
		assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
		lease.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertThat(lease.isActive()).isFalse();
		assertThat(this.redis.exists(key(name))).isFalse();
	}

	@Test
	void tenThousandHostileNamesLockAndSpreadOverEveryMaster() throws Exception {
		String prefix = this.redis.unique("hostile");
		List<String> names = HostileNames.generate(prefix, 10_000, 8);
		int threads = 8;
		List<Future<?>> tasks = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t;
			tasks.add(this.executor.submit(() -> {
				for (int i = first; i < names.size(); i += threads) {
					// Any CROSSSLOT or MOVED reaching the caller fails the test here.
					try (RedisLock.Lease lease = this.registry.getLock(names.get(i)).acquire(Duration.ZERO)) {
						assertThat(lease.fencingToken()).isPositive();
					}
				}
				return null;
			}));
		}
		for (Future<?> task : tasks) {
			task.get(5, TimeUnit.MINUTES);
		}
		// Each name keeps its :fence key after release: count those per master.
		Map<RedisServerProcess, Long> spread = this.redis.keysPerMaster("rk:lock:{" + prefix + "*}:fence");
		assertThat(spread.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(names.size());
		int masters = (this.topology == Topology.CLUSTER) ? 3 : 1;
		assertThat(spread).hasSize(masters);
		assertThat(spread.values()).as("keys per master").allMatch((count) -> count > names.size() / masters / 2);
		assertThat(this.registry.heldLocks()).isEmpty();
	}

	@Test
	void manyThreadsNeverOverlap() throws Exception {
		int threads = 16;
		int iterations = 40;
		String name = this.redis.unique("counter-lock");
		String counter = this.redis.unique("counter");
		String resource = this.redis.unique("resource");
		AtomicLong rejected = new AtomicLong();
		try (LockRegistry second = registry(LockSpec.defaults())) {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				// Two registries stand for two application instances.
				RedisLock lock = ((t % 2 == 0) ? this.registry : second).getLock(name);
				tasks.add(this.executor.submit(() -> {
					try (RedisConnection connection = this.redis.connections().getConnection()) {
						for (int i = 0; i < iterations; i++) {
							lock.lock();
							try {
								unsafeIncrement(connection, counter);
								if (!fencedWrite(this.redis.connections(), resource, lock.getFencingToken(), "w")) {
									rejected.incrementAndGet();
								}
							}
							finally {
								lock.unlock();
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(5, TimeUnit.MINUTES);
			}
		}
		assertThat(rejected.get()).as("fenced writes rejected").isZero();
		assertThat(this.redis.masterFor(counter).command("GET", counter)).as("the non-atomic counter")
			.isEqualTo(Long.toString((long) threads * iterations));
		assertThat(this.redis.exists(key(name))).isFalse();
	}

}

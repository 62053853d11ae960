package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The read-write lock's contract on every topology: readers share, a writer is alone (checked by an independent
 * {@link SharedHoldLog}), re-entry and downgrade per thread, no upgrade, a waiting writer is not starved by a
 * stream of readers, leases, fencing and asynchronous waits, and no key left behind.
 */
class ReadWriteLockContractTests extends TopologyContract {

	static final WaiterLineSpec SPEC = new WaiterLineSpec(Duration.ofMillis(900), null, Duration.ofSeconds(5),
			Duration.ofMillis(200), Duration.ofSeconds(1));

	LockTesting.RecordingListener listener;

	ReadWriteLockRegistry registry;

	ExecutorService executor;

	@BeforeEach
	void open() {
		this.listener = new LockTesting.RecordingListener();
		this.registry = registry(this.listener);
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void close() {
		this.executor.shutdownNow();
		this.registry.close();
	}

	ReadWriteLockRegistry registry(LockListener listener) {
		return LockTesting.observed(new ReadWriteLockRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), SPEC, List.of(listener), Clock.systemUTC()), listener);
	}

	static String key(String name, String suffix) {
		return suffix.isEmpty() ? KeyNaming.defaults().key("rwlock", name)
				: KeyNaming.defaults().key("rwlock", name, suffix);
	}

	void assertNoKeys(String name) {
		for (String suffix : List.of("", "readers", "writers")) {
			LockTesting.awaitCondition("no key " + key(name, suffix), Duration.ofSeconds(5),
					() -> !this.redis.exists(key(name, suffix)));
		}
	}

	@Test
	void readersShareAndAWriterIsAlone() {
		String name = this.redis.unique("shared");
		try (ReadWriteLockRegistry other = registry(new LockTesting.RecordingListener())) {
			ReadWriteLock here = this.registry.getReadWriteLock(name);
			ReadWriteLock there = other.getReadWriteLock(name);
			Lease first = here.readLock().acquire(Duration.ZERO);
			Lease second = there.readLock().acquire(Duration.ZERO);
			assertThat(here.readLock().isLocked()).isTrue();
			assertThat(here.writeLock().isLocked()).isFalse();
			assertThat(there.writeLock().tryAcquire(Duration.ZERO, null)).as("a writer beside readers").isEmpty();
			first.close();
			assertThat(there.writeLock().tryAcquire(Duration.ZERO, null)).as("a writer beside a reader").isEmpty();
			second.close();
			Lease write = there.writeLock().acquire(Duration.ofSeconds(2));
			assertThat(write.fencingToken()).isGreaterThan(second.fencingToken());
			assertThat(here.writeLock().isLocked()).isTrue();
			assertThat(here.readLock().tryAcquire(Duration.ZERO, null)).as("a reader beside a writer").isEmpty();
			assertThat(here.writeLock().tryAcquire(Duration.ZERO, null)).as("a writer beside a writer").isEmpty();
			write.close();
			assertThat(here.readLock().tryAcquire(Duration.ZERO, null)).hasValueSatisfying(Lease::close);
		}
		assertNoKeys(name);
	}

	@Test
	void isReentrantPerThreadAndAWriterDowngrades() throws Exception {
		String name = this.redis.unique("downgrade");
		ReadWriteLock lock = this.registry.getReadWriteLock(name);
		try (ReadWriteLockRegistry other = registry(new LockTesting.RecordingListener())) {
			RedisLock otherWrite = other.getReadWriteLock(name).writeLock();
			RedisLock otherRead = other.getReadWriteLock(name).readLock();
			this.executor.submit(() -> {
				lock.writeLock().lock();
				lock.writeLock().lock();
				assertThat(lock.writeLock().holdCount()).isEqualTo(2);
				long token = lock.writeLock().fencingToken();
				lock.readLock().lock();
				assertThat(lock.readLock().holdCount()).isEqualTo(1);
				lock.writeLock().unlock();
				lock.writeLock().unlock();
				assertThat(lock.writeLock().isLocked()).isFalse();
				assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
				assertThat(lock.readLock().fencingToken()).isGreaterThan(token);
				assertThat(otherWrite.tryAcquire(Duration.ZERO, null)).as("a writer beside the downgraded reader")
					.isEmpty();
				assertThat(otherRead.tryAcquire(Duration.ZERO, null)).as("another reader").hasValueSatisfying(Lease::close);
				assertThatExceptionOfType(IllegalStateException.class).isThrownBy(lock.writeLock()::lock)
					.withMessageContaining("upgrading is not supported");
				lock.readLock().unlock();
				assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock.readLock()::unlock);
				return null;
			}).get(20, TimeUnit.SECONDS);
			assertThat(otherWrite.tryAcquire(Duration.ZERO, null)).hasValueSatisfying(Lease::close);
		}
		assertNoKeys(name);
	}

	@Test
	void aWaitingWriterIsNotStarvedByAStreamOfReaders() throws Exception {
		String name = this.redis.unique("starve");
		SharedHoldLog log = new SharedHoldLog();
		AtomicBoolean stop = new AtomicBoolean();
		try (ReadWriteLockRegistry writers = registry(new LockTesting.RecordingListener())) {
			List<Future<?>> readers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				long stagger = i * 4L;
				readers.add(this.executor.submit(() -> {
					RedisLock read = this.registry.getReadWriteLock(name).readLock();
					Thread.sleep(stagger);
					while (!stop.get()) {
						read.lock();
						long entered = SharedHoldLog.now();
						Thread.sleep(30);
						long left = SharedHoldLog.now();
						log.read(entered, left, read.fencingToken());
						read.unlock();
					}
					return null;
				}));
			}
			// Eight readers of 30 ms each, staggered: without a preference for the writer the lock is never free of them.
			LockTesting.awaitCondition("readers overlapping", Duration.ofSeconds(10), log::readsOverlapped);
			RedisLock write = writers.getReadWriteLock(name).writeLock();
			long asked = System.nanoTime();
			for (int i = 0; i < 3; i++) {
				try (Lease lease = write.acquire(Duration.ofSeconds(10))) {
					long entered = SharedHoldLog.now();
					Thread.sleep(5);
					log.write(entered, SharedHoldLog.now(), lease.fencingToken());
				}
			}
			Duration waited = Duration.ofNanos(System.nanoTime() - asked);
			int readsBefore = log.reads();
			LockTesting.awaitCondition("readers after the writer", Duration.ofSeconds(10), () -> log.reads() > readsBefore);
			stop.set(true);
			for (Future<?> reader : readers) {
				reader.get(20, TimeUnit.SECONDS);
			}
			assertThat(waited).as("three writes amid a stream of readers").isLessThan(Duration.ofSeconds(10));
		}
		assertThat(log.writes()).isEqualTo(3);
		assertThat(log.violations()).isEmpty();
		assertNoKeys(name);
	}

	@Test
	void anExplicitLeaseEndsAndItsOwnerLearnsItWasLost() throws Exception {
		String name = this.redis.unique("lease");
		ReadWriteLock lock = this.registry.getReadWriteLock(name);
		Lease read = lock.readLock().acquire(Duration.ZERO, Duration.ofMillis(200));
		LockTesting.awaitCondition("the read lease ended", Duration.ofSeconds(5), () -> !lock.readLock().isLocked());
		Lease write = lock.writeLock().acquire(Duration.ofSeconds(2));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(read::close);
		write.close();
		assertNoKeys(name);
	}

	@Test
	void theWatchdogRenewsEveryHold() throws Exception {
		String name = this.redis.unique("watchdog");
		ReadWriteLock lock = this.registry.getReadWriteLock(name);
		Lease read = lock.readLock().acquire(Duration.ZERO);
		// Past the watchdog timeout (900 ms, renewed every 300 ms): only renewals keep the hold.
		LockTesting.awaitCondition("four renewals", Duration.ofSeconds(10),
				() -> this.listener.count("renewal " + name + " RENEWED") >= 4);
		assertThat(lock.readLock().isLocked()).isTrue();
		assertThat(read.isActive()).isTrue();
		read.close();
		Lease write = lock.writeLock().acquire(Duration.ZERO);
		LockTesting.awaitCondition("four more renewals", Duration.ofSeconds(10),
				() -> this.listener.count("renewal " + name + " RENEWED") >= 8);
		assertThat(lock.writeLock().isLocked()).isTrue();
		write.close();
		assertThat(this.listener.count("lost")).isZero();
		assertNoKeys(name);
	}

	@Test
	void waitsAsynchronouslyAndACancelledWaitLeavesNothing() throws Exception {
		String name = this.redis.unique("async");
		ReadWriteLock lock = this.registry.getReadWriteLock(name);
		Lease write = lock.writeLock().acquire(Duration.ZERO);
		CompletableFuture<Lease> read = lock.readLock().acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
		CompletableFuture<Lease> cancelled = lock.writeLock().acquireAsync(Duration.ofSeconds(10))
			.toCompletableFuture();
		LockTesting.awaitCondition("a waiting writer", Duration.ofSeconds(5), () -> this.redis.exists(key(name, "writers")));
		cancelled.cancel(false);
		LockTesting.awaitCondition("no waiting writer", Duration.ofSeconds(5), () -> !this.redis.exists(key(name, "writers")));
		assertThat(read).isNotDone();
		write.close();
		Lease reading = read.get(10, TimeUnit.SECONDS);
		assertThat(reading.fencingToken()).isGreaterThan(write.fencingToken());
		reading.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertNoKeys(name);
	}

	/**
	 * A waiting writer whose caller completes the stage itself ends its wait at once: it gives up its place as the
	 * waiting writer while the holder still writes, minutes before its own wait time, and is reported as
	 * interrupted; nothing of it is left.
	 */
	@Test
	void aStageTheCallerCompletesGivesUpTheWritersPlaceAtOnce() throws Exception {
		String name = this.redis.unique("caller-completes");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (ReadWriteLockRegistry waiter = registry(waiting)) {
			Lease write = this.registry.getReadWriteLock(name).writeLock().acquire(Duration.ZERO);
			CompletableFuture<Lease> wait = waiter.getReadWriteLock(name).writeLock()
				.acquireAsync(Duration.ofMinutes(5))
				.toCompletableFuture();
			LockTesting.awaitCondition("a waiting writer", Duration.ofSeconds(5),
					() -> this.redis.exists(key(name, "writers")));
			assertThat(wait.complete(null)).isTrue();
			LockTesting.awaitCondition("no waiting writer", Duration.ofSeconds(10),
					() -> !this.redis.exists(key(name, "writers")));
			LockTesting.awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(waiting.events).containsExactly("acquire " + name + " INTERRUPTED");
			assertThat(waiter.heldLocks()).isEmpty();
			write.close();
		}
		assertNoKeys(name);
	}

	/**
	 * A writer's caller cancels as the grant is handed over (as the hold's observation starts, after the wait
	 * checked for a cancel, before the stage takes the lease): interrupted, never acquired, no release reported,
	 * and no waiting writer, hold or key left.
	 */
	@Test
	void aCancelAsTheGrantIsHandedOverIsReportedAsInterruptedAndLeavesNothing() throws Exception {
		String name = this.redis.unique("handover");
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		try (ReadWriteLockRegistry waiter = registry(waiting)) {
			Lease write = this.registry.getReadWriteLock(name).writeLock().acquire(Duration.ZERO);
			CompletableFuture<Lease> wait = waiter.getReadWriteLock(name).writeLock().acquireAsync(Duration.ofSeconds(10))
				.toCompletableFuture();
			LockTesting.awaitCondition("a waiting writer", Duration.ofSeconds(5),
					() -> this.redis.exists(key(name, "writers")));
			AtomicReference<Boolean> cancelled = new AtomicReference<>();
			waiting.onNextHoldStart(() -> cancelled.set(wait.cancel(false)));
			write.close();
			LockTesting.awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
					() -> waiting.count("acquire " + name) >= 1);
			assertThat(cancelled.get()).as("cancelled as the grant was handed over").isTrue();
			assertThat(wait).isCancelled();
			LockTesting.awaitCondition("no hold left", Duration.ofSeconds(10), () -> waiter.heldLocks().isEmpty());
			Lease next = this.registry.getReadWriteLock(name).writeLock().acquire(Duration.ofSeconds(10));
			assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
			next.close();
		}
		assertThat(waiting.events).as("one outcome, and no release").containsExactly("acquire " + name + " INTERRUPTED");
		assertNoKeys(name);
	}

}

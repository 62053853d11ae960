package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** {@link RedisLock#acquireAsync(Duration, Duration)}, {@link Lease#releaseAsync()} and the lifecycle. */
class LockAsyncTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	RedisServerProcess server;

	LockTesting.RecordingListener listener;

	LockRegistry registry;

	ExecutorService executor;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.listener = new LockTesting.RecordingListener();
		this.registry = registry(LockSpec.defaults());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		this.registry.close();
	}

	private LockRegistry registry(LockSpec spec) {
		return LockTesting.observed(new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(), spec,
				List.of(this.listener), Clock.systemUTC()), this.listener);
	}

	@Test
	void acquiresAFreeLockAndReleasesItAsync() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		Lease lease = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lease.isActive()).isTrue();
		assertThat(lease.lockName()).isEqualTo("orders");
		assertThat(this.server.command("HGET", "rk:lock:{orders}", "f")).isEqualTo(Long.toString(lease.fencingToken()));
		assertThat(this.registry.heldLocks()).singleElement()
			.satisfies((held) -> assertThat(held.owner()).isEqualTo("lease"));
		lease.releaseAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lease.isActive()).isFalse();
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).isEqualTo(0L);
		assertThat(this.registry.heldLocks()).isEmpty();
		assertThat(lease.releaseAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).as("second release").isNull();
		assertThat(this.listener.events).containsExactly("acquire orders ACQUIRED", "release orders");
	}

	@Test
	void aGrantArrivingAfterTheCancellationIsUndoneAndNeverReportedAsAcquired() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		// Started, with its script loaded and its channel subscribed.
		lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS).close();
		this.listener.events.clear();
		CompletableFuture<Lease> acquiring;
		// The attempt is sent to a paused server, so it is certainly still in flight when the caller cancels,
		// and the server grants it once resumed: the lock is free.
		this.server.pause();
		try {
			acquiring = lock.acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
			assertThat(acquiring.cancel(false)).isTrue();
		}
		finally {
			this.server.resume();
		}
		awaitCondition("the acquisition to end", Duration.ofSeconds(5), () -> !this.listener.events.isEmpty());
		// It ends only once the grant is undone: the key is gone and the next caller gets the lock at once.
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).isEqualTo(0L);
		assertThat(this.listener.events).containsExactly("acquire orders INTERRUPTED");
		assertThat(this.registry.heldLocks()).isEmpty();
		try (Lease next = lock.acquire(Duration.ZERO)) {
			assertThat(next.isActive()).isTrue();
		}
	}

	@Test
	void aContendedAsyncWaiterIsWokenByTheReleaseAndGetsALargerToken() throws Exception {
		// The waiter polls at most every 10 minutes and the holder's lease is 30 s: only the release message can
		// wake it within its wait.
		try (LockRegistry waiting = registry(LockSpec.defaults().withMaxPollInterval(Duration.ofMinutes(10)))) {
			Lease held = this.registry.getLock("orders").acquire(Duration.ZERO);
			CompletableFuture<Lease> waiter = waiting.getLock("orders")
				.acquireAsync(Duration.ofSeconds(20))
				.toCompletableFuture();
			awaitCondition("the async waiter to subscribe", Duration.ofSeconds(5),
					() -> waiting.signals().subscribedChannels() == 1);
			assertThat(waiter).isNotDone();
			held.close();
			Lease lease = waiter.get(10, TimeUnit.SECONDS);
			assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
			assertThat(this.server.command("HGET", "rk:lock:{orders}", "f")).isEqualTo(Long.toString(lease.fencingToken()));
			lease.close();
			awaitCondition("the waiter to leave its channel", Duration.ofSeconds(5),
					() -> waiting.signals().subscribedChannels() == 0);
		}
	}

	@Test
	void anAsyncWaiterRetriesWhenTheHoldersLeaseEnds() throws Exception {
		// An expiry publishes nothing and the waiter polls every 10 minutes at most: the lease's end must wake it.
		try (LockRegistry waiting = registry(LockSpec.defaults().withMaxPollInterval(Duration.ofMinutes(10)))) {
			Lease expiring = this.registry.getLock("orders").acquire(Duration.ZERO, Duration.ofMillis(300));
			Lease lease = waiting.getLock("orders")
				.acquireAsync(Duration.ofSeconds(20))
				.toCompletableFuture()
				.get(10, TimeUnit.SECONDS);
			assertThat(lease.fencingToken()).isGreaterThan(expiring.fencingToken());
			lease.close();
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(expiring::close);
		}
	}

	@Test
	void anAsyncWaitThatRunsOutCompletesWithLockNotAcquired() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		try (Lease held = lock.acquire(Duration.ZERO)) {
			long started = System.nanoTime();
			CompletableFuture<Lease> waiter = lock.acquireAsync(Duration.ofMillis(300)).toCompletableFuture();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockNotAcquiredException.class)
				.withMessageContaining("'orders'");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
			// Reported just after the stage took the timeout (the stage decides), on the thread that completed it.
			awaitCondition("the wait reported", Duration.ofSeconds(10),
					() -> this.listener.events.contains("acquire orders TIMEOUT"));
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(LockNotAcquiredException.class);
			awaitCondition("the waiter to leave its channel", Duration.ofSeconds(5),
					() -> this.registry.signals().subscribedChannels() == 0);
			assertThat(this.registry.heldLocks()).hasSize(1);
		}
	}

	@Test
	void asyncAndBlockingAcquirersOfOneNameNeverOverlap() throws Exception {
		RedisLock lock = this.registry.getLock("shared");
		AtomicInteger holders = new AtomicInteger();
		AtomicInteger mostHolders = new AtomicInteger();
		List<Long> tokens = new CopyOnWriteArrayList<>();
		ExecutorService critical = Executors.newFixedThreadPool(8);
		try (RedisConnection connection = redis.connections().getConnection()) {
			Runnable criticalSection = () -> {
				mostHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
				// Non-atomic read-modify-write in Redis: only mutual exclusion keeps the count exact.
				LockTesting.unsafeIncrement(connection, "async-counter");
				holders.decrementAndGet();
			};
			List<CompletableFuture<?>> asyncHolders = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				asyncHolders.add(lock.acquireAsync(Duration.ofSeconds(60)).toCompletableFuture()
					.thenApplyAsync((lease) -> {
						tokens.add(lease.fencingToken());
						criticalSection.run();
						return lease;
					}, critical)
					.thenCompose(Lease::releaseAsync));
			}
			List<Future<?>> threads = new ArrayList<>();
			for (int t = 0; t < 4; t++) {
				threads.add(this.executor.submit(() -> {
					for (int i = 0; i < 10; i++) {
						lock.lock();
						try {
							tokens.add(lock.fencingToken());
							criticalSection.run();
						}
						finally {
							lock.unlock();
						}
					}
				}));
			}
			CompletableFuture.allOf(asyncHolders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			for (Future<?> thread : threads) {
				thread.get(60, TimeUnit.SECONDS);
			}
			assertThat(mostHolders).hasValue(1);
			assertThat(new String(connection.stringCommands().get(LockTesting.bytes("async-counter")))).isEqualTo("140");
			assertThat(tokens).hasSize(140).isSorted().doesNotHaveDuplicates();
		}
		finally {
			critical.shutdownNow();
		}
		assertThat(this.registry.heldLocks()).isEmpty();
		awaitCondition("every waiter to leave", Duration.ofSeconds(5),
				() -> this.registry.signals().subscribedChannels() == 0);
		assertThat(this.server.command("EXISTS", "rk:lock:{shared}")).isEqualTo(0L);
	}

	@Test
	void theWatchdogRenewsAnAsyncLease() throws Exception {
		this.registry.close();
		this.registry = registry(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(300)));
		// Before the call: the watchdog's first period starts when the acquisition succeeds, which can be before
		// the future completes here, so six renewals (a third of the timeout apart) end at least 600 ms after this.
		long started = System.nanoTime();
		Lease lease = this.registry.getLock("orders")
			.acquireAsync(Duration.ZERO)
			.toCompletableFuture()
			.get(5, TimeUnit.SECONDS);
		awaitCondition("six renewals", Duration.ofSeconds(10), () -> this.listener.count("renewal orders RENEWED") >= 6);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
		assertThat(lease.isActive()).isTrue();
		assertThat((Long) this.server.command("PTTL", "rk:lock:{orders}")).isBetween(1L, 300L);
		lease.close();
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).isEqualTo(0L);
	}

	@Test
	void startsNothingBeforeItsFirstUseAndStopsWhatItStarted() {
		int before = schedulerThreads();
		LockRegistry registry = registry(LockSpec.defaults());
		assertThat(registry.isRunning()).isFalse();
		// At most as many as before: a scheduler of a registry closed by an earlier test may still be ending.
		assertThat(schedulerThreads()).isLessThanOrEqualTo(before);
		RedisLock lock = registry.getLock("lifecycle");
		lock.lock();
		assertThat(registry.isRunning()).isTrue();
		assertThat(schedulerThreads()).isPositive();
		lock.unlock();
		registry.close();
		assertThat(registry.isRunning()).isFalse();
		awaitCondition("the scheduler thread to end", Duration.ofSeconds(5), () -> schedulerThreads() <= before);
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(lock::tryLock).withMessageContaining("closed");
	}

	@Test
	void stoppingEndsAsyncWaitsAndALaterAcquisitionStartsAgain() throws Exception {
		RedisLock lock = this.registry.getLock("orders");
		Lease held = lock.acquire(Duration.ZERO);
		CompletableFuture<Lease> waiter = lock.acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
		awaitCondition("the async waiter to subscribe", Duration.ofSeconds(5),
				() -> this.registry.signals().subscribedChannels() == 1);
		this.registry.stop();
		assertThat(this.registry.isRunning()).isFalse();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(5, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(IllegalStateException.class)
			.withMessageContaining("stopped");
		held.close();
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.registry.isRunning()).isTrue();
		lock.unlock();
	}

	@Test
	void anApplicationSchedulerIsUsedAndLeftRunning() throws Exception {
		org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler scheduler = new org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler();
		scheduler.setThreadNamePrefix("application-scheduler-");
		scheduler.initialize();
		try {
			this.registry.close();
			this.registry = registry(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(300)));
			this.registry.setBackground(Background.of(scheduler, this.executor));
			int before = schedulerThreads();
			this.registry.start();
			assertThat(schedulerThreads()).as("no scheduler thread of its own").isLessThanOrEqualTo(before);
			RedisLock lock = this.registry.getLock("orders");
			lock.lock();
			awaitCondition("renewals", Duration.ofSeconds(10), () -> this.listener.count("renewal orders RENEWED") >= 2);
			lock.unlock();
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> this.registry.setBackground(Background.of(scheduler, this.executor)));
			this.registry.stop();
			assertThat(scheduler.getScheduledExecutor().isShutdown()).isFalse();
		}
		finally {
			scheduler.shutdown();
		}
	}

	private static int schedulerThreads() {
		return (int) Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("redis-kit-lock-scheduler") && thread.isAlive())
			.count();
	}

	/**
	 * A caller whose own deadline ends the stage ({@code orTimeout}) ends the wait at once, as a cancel does: the
	 * wait leaves the lock's channel (the registry's subscription to it goes, the waiter being its last) while the
	 * holder still holds the lock, and is reported as a timeout; the release later wakes nobody and the key goes.
	 */
	@Test
	void aStageTheCallersDeadlineEndsLeavesTheChannelAtOnce() throws Exception {
		try (LockRegistry waiting = registry(LockSpec.defaults().withMaxPollInterval(Duration.ofMinutes(10)))) {
			Lease held = this.registry.getLock("deadline").acquire(Duration.ZERO);
			CompletableFuture<Lease> waiter = waiting.getLock("deadline")
				.acquireAsync(Duration.ofMinutes(5))
				.toCompletableFuture();
			awaitCondition("the async waiter to subscribe", Duration.ofSeconds(5),
					() -> waiting.signals().subscribedChannels() == 1);
			waiter.orTimeout(1, TimeUnit.MILLISECONDS);
			awaitCondition("the channel left", Duration.ofSeconds(10),
					() -> waiting.signals().subscribedChannels() == 0);
			awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
					() -> this.listener.events.contains("acquire deadline TIMEOUT"));
			assertThat(held.isActive()).isTrue();
			held.close();
			assertThat(this.server.command("EXISTS", "rk:lock:{deadline}")).isEqualTo(0L);
			assertThat(waiting.heldLocks()).isEmpty();
		}
	}

	@Test
	void isLockedAsyncSeesAnyOwner() throws Exception {
		RedisLock lock = this.registry.getLock("probe");
		assertThat(lock.isLockedAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
		Lease lease = lock.acquireAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lock.isLockedAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		lease.releaseAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(lock.isLockedAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
	}

	@Test
	void cancellingAnAsyncWaitEndsItAndTakesNothing() throws Exception {
		RedisLock lock = this.registry.getLock("cancelled");
		Lease holder = lock.acquire(Duration.ZERO);
		CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofMinutes(5)).toCompletableFuture();
		// The waiter is in its busy wait once it has joined the lock's release channel.
		awaitCondition("waiter subscribed", Duration.ofSeconds(20),
				() -> Long.valueOf(1).equals(((List<?>) this.server.command("PUBSUB", "NUMSUB", "rk:lock:{cancelled}:released")).get(1)));
		assertThat(waiting.cancel(false)).isTrue();
		awaitCondition("wait ended", Duration.ofSeconds(20),
				() -> this.listener.events.contains("acquire cancelled INTERRUPTED"));
		holder.close();
		awaitCondition("channel left", Duration.ofSeconds(20),
				() -> Long.valueOf(0).equals(((List<?>) this.server.command("PUBSUB", "NUMSUB", "rk:lock:{cancelled}:released")).get(1)));
		assertThat(this.server.command("EXISTS", "rk:lock:{cancelled}")).isEqualTo(0L);
		assertThat(this.listener.events).containsOnlyOnce("acquire cancelled ACQUIRED");
	}

}

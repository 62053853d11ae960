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
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Names;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;


import static io.rediskit.lock.LockTesting.awaitCondition;
import static io.rediskit.lock.LockTesting.fencedWrite;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lock semantics against a real redis-server. */
class RedisLockTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	RedisServerProcess server;

	LockTesting.RecordingListener listener;

	LockRegistry factory;

	ExecutorService executor;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.listener = new LockTesting.RecordingListener();
		this.factory = factory(LockSpec.defaults());
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		this.factory.close();
	}

	private LockRegistry factory(LockSpec settings) {
		return LockTesting.observed(new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				settings, List.of(this.listener), Clock.systemUTC()), this.listener);
	}

	@Test
	void lockAndUnlockLeaveOnlyTheExpiringFenceKey() {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		assertThat(this.server.command("HGET", "rk:lock:{orders}", "o")).asString().endsWith(":t" + Thread.currentThread().getId());
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(this.server.command("KEYS", "*")).isEqualTo(List.of("rk:lock:{orders}:fence"));
		assertThat((Long) this.server.command("PTTL", "rk:lock:{orders}:fence")).isPositive();
		assertThat(this.listener.events).containsExactly("acquire orders ACQUIRED", "release orders");
	}

	@Test
	void aNamedRenewedLeaseIsTheHolderEveryInstanceSeesWhateverTheDefaultLease() {
		try (LockRegistry withDefaultLease = factory(LockSpec.defaults().withDefaultLeaseTime(Duration.ofSeconds(5)))) {
			RedisLock lock = withDefaultLease.getLock("named");
			assertThat(lock.holder()).isEmpty();
			Lease lease = lock.acquireRenewedAsync(Duration.ZERO, "billing-7").toCompletableFuture().join();
			assertThat(this.factory.getLock("named").holder())
				.contains(new RedisLock.Holder("billing-7", lease.fencingToken()));
			assertThat(withDefaultLease.heldLocks()).singleElement()
				.satisfies((held) -> assertThat(held.watchdog()).as("renewed, not the default lease").isTrue());
			assertThat(lease.certainValidity()).isPositive().isLessThanOrEqualTo(lock.watchdogTimeout());
			lease.close();
			assertThat(lease.certainValidity()).isZero();
		}
		RedisLock plain = this.factory.getLock("plain");
		plain.lock();
		assertThat(plain.holder()).hasValueSatisfying((holder) -> assertThat(holder.name()).isNull());
		plain.unlock();
		assertThatIllegalArgumentException().isThrownBy(() -> plain.acquireRenewedAsync(Duration.ZERO, "a/b"))
			.withMessageContaining("holderName");
		assertThatIllegalArgumentException().isThrownBy(() -> plain.acquireRenewedAsync(Duration.ZERO, "a:t1"))
			.withMessageContaining("holderName");
	}

	@Test
	void reentrantHoldsCountUpAndDown() {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		long token = lock.fencingToken();
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.holdCount()).isEqualTo(2);
		assertThat(lock.fencingToken()).isEqualTo(token);
		lock.unlock();
		assertThat(lock.holdCount()).isEqualTo(1);
		assertThat(lock.isLocked()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
		assertThat(lock.holdCount()).isZero();
	}

	@Test
	void anotherOwnerWaitsUntilTheWaitTimeRunsOut() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		long started = System.nanoTime();
		boolean acquired = this.executor.submit(() -> lock.tryLock(Duration.ofMillis(300))).get();
		assertThat(acquired).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		assertThat(this.listener.events).contains("acquire orders TIMEOUT");
		assertThat(this.factory.signals().subscribedChannels()).isZero();
		lock.unlock();
	}

	@Test
	void waitersInAnotherClientAreWokenByTheReleaseNotPolling() throws Exception {
		// The waiter belongs to another factory (as in another JVM), polls at most every 10 minutes, and the
		// holder's lease is 30 s: only the release message can wake it within its 10 s wait.
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		try (LockRegistry other = factory(LockSpec.defaults().withMaxPollInterval(Duration.ofMinutes(10)))) {
			RedisLock remote = other.getLock("orders");
			Future<Long> waiter = this.executor.submit(() -> {
				try (Lease lease = remote.acquire(Duration.ofSeconds(10))) {
					return lease.fencingToken();
				}
			});
			awaitCondition("the other client to wait", Duration.ofSeconds(5),
					() -> other.signals().subscribedChannels() == 1);
			long first = lock.fencingToken();
			lock.unlock();
			assertThat(waiter.get(9, TimeUnit.SECONDS)).isGreaterThan(first);
		}
	}

	@Test
	void aWaiterThatMeetsTheLastMillisecondOfALeaseRetriesPromptly() {
		// Leases of 1 to 3 ms that run out (expiry publishes nothing) and a waiter that polls every 30 s at most:
		// an attempt in a lease's last millisecond sees a PTTL of 0, which must not mean a 30 s sleep.
		try (LockRegistry other = factory(LockSpec.defaults().withMaxPollInterval(Duration.ofSeconds(30)))) {
			RedisLock holder = this.factory.getLock("expiring");
			RedisLock waiter = other.getLock("expiring");
			for (int i = 0; i < 100; i++) {
				Lease expiring = holder.acquire(Duration.ZERO, Duration.ofMillis(1 + i % 3));
				long started = System.nanoTime();
				try (Lease lease = waiter.acquire(Duration.ofSeconds(10))) {
					assertThat(lease.fencingToken()).isGreaterThan(expiring.fencingToken());
				}
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("wait of attempt %d", i)
					.isLessThan(Duration.ofSeconds(5));
				assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(expiring::close);
			}
		}
	}

	@Test
	void localWaitersAreHandedTheLockInArrivalOrder() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		List<Integer> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			int id = i;
			waiters.add(this.executor.submit(() -> {
				lock.lock();
				order.add(id);
				lock.unlock();
				return null;
			}));
			int expected = i + 1;
			awaitCondition("waiter " + i + " to queue", Duration.ofSeconds(5),
					() -> queued(lock) == expected);
		}
		lock.unlock();
		for (Future<?> waiter : waiters) {
			waiter.get(10, TimeUnit.SECONDS);
		}
		assertThat(order).containsExactly(0, 1, 2);
		assertThat(lock.isLocked()).isFalse();
	}

	private int queued(RedisLock lock) {
		return this.factory.signals().waiting(lock.keys().released);
	}

	@Test
	void unlockFromAThreadThatDoesNotHoldItChangesNothing() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		Object ownerBefore = this.server.command("HGETALL", "rk:lock:{orders}");
		Future<?> foreign = this.executor.submit(lock::unlock);
		assertThatThrownBy(foreign::get).hasCauseExactlyInstanceOf(IllegalMonitorStateException.class)
			.hasMessageContaining("not held by the current thread");
		assertThat(this.server.command("HGETALL", "rk:lock:{orders}")).isEqualTo(ownerBefore);
		lock.unlock();
	}

	@Test
	void aLeaseIsReleasedFromAnotherThread() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		Lease lease = lock.acquire(Duration.ZERO);
		assertThat(lease.isActive()).isTrue();
		assertThat(lock.tryLock()).as("a lease is not owned by the thread").isFalse();
		this.executor.submit(lease::close).get();
		assertThat(lease.isActive()).isFalse();
		assertThat(lock.isLocked()).isFalse();
		lease.close();
		assertThat(this.listener.count("release")).isEqualTo(1);
	}

	@Test
	void acquireThrowsWhenTheWaitRunsOut() {
		RedisLock lock = this.factory.getLock("orders");
		try (Lease held = lock.acquire(Duration.ZERO)) {
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> lock.acquire(Duration.ofMillis(50)))
				.withMessageContaining("'orders'")
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("orders"));
			assertThat(lock.tryAcquire(Duration.ZERO, null)).isEmpty();
		}
	}

	@Test
	void interruptEndsTheWaitAndLeavesNoKey() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		AtomicReference<Throwable> outcome = new AtomicReference<>();
		AtomicReference<Boolean> flagAfter = new AtomicReference<>();
		Thread waiter = new Thread(() -> {
			try {
				lock.lockInterruptibly();
				outcome.set(new AssertionError("acquired"));
			}
			catch (InterruptedException ex) {
				outcome.set(ex);
			}
			flagAfter.set(Thread.currentThread().isInterrupted());
		});
		waiter.start();
		awaitCondition("the waiter to wait", Duration.ofSeconds(5), () -> this.factory.signals().subscribedChannels() == 1);
		waiter.interrupt();
		waiter.join(5000);
		assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
		assertThat(flagAfter.get()).as("InterruptedException clears the flag").isFalse();
		assertThat(this.listener.events).contains("acquire orders INTERRUPTED");
		assertThat(this.factory.signals().subscribedChannels()).isZero();
		lock.unlock();
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).isEqualTo(0L);
		assertThat(this.factory.heldLocks()).isEmpty();
	}

	@Test
	void uninterruptibleLockRestoresTheInterruptFlag() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		Lease lease = lock.acquire(Duration.ZERO);
		Future<Boolean> waiter = this.executor.submit(() -> {
			Thread.currentThread().interrupt();
			lock.lock();
			boolean interrupted = Thread.currentThread().isInterrupted();
			lock.unlock();
			return interrupted;
		});
		awaitCondition("the waiter to wait", Duration.ofSeconds(5), () -> this.factory.signals().subscribedChannels() == 1);
		lease.close();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void interruptedBeforeTryLockThrowsAndTakesNothing() {
		RedisLock lock = this.factory.getLock("orders");
		Thread.currentThread().interrupt();
		assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> lock.tryLock(Duration.ofSeconds(1)));
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void watchdogKeepsALockThreeTimesLongerThanItsTimeoutThenStops() {
		this.factory.close();
		this.factory = factory(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(300)));
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		long started = System.nanoTime();
		// Three watchdog timeouts, measured by renewals actually made, not by sleeping.
		awaitCondition("nine renewals", Duration.ofSeconds(10), () -> this.listener.count("renewal orders RENEWED") >= 9);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat((Long) this.server.command("PTTL", "rk:lock:{orders}")).isBetween(1L, 300L);
		lock.unlock();
		assertThat(this.factory.heldLocks()).isEmpty();
		long renewals = this.listener.count("renewal orders");
		// A canary lock shows the watchdog ticking twice more; it must not touch the released lock.
		RedisLock canary = this.factory.getLock("canary");
		canary.lock();
		awaitCondition("two more watchdog ticks", Duration.ofSeconds(10),
				() -> this.listener.count("renewal canary RENEWED") >= 2);
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).isEqualTo(0L);
		// At most one renewal that was already in flight when unlock ran.
		assertThat(this.listener.count("renewal orders")).isLessThanOrEqualTo(renewals + 1);
		assertThat(this.listener.count("lost")).isZero();
		canary.unlock();
	}

	@Test
	void anOverrunLeaseIsLostTheStaleWriteIsFencedAndTheNewOwnerKeepsItsKey() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(200))).isTrue();
		long staleToken = lock.fencingToken();
		assertThat(fencedWrite(redis.connections(), "resource", staleToken, "first")).isTrue();
		// The holder overruns its lease; another owner takes the lock once it has expired.
		Lease newOwner = this.executor.submit(() -> lock.acquire(Duration.ofSeconds(5))).get();
		assertThat(newOwner.fencingToken()).isGreaterThan(staleToken);
		assertThat(fencedWrite(redis.connections(), "resource", newOwner.fencingToken(), "second")).isTrue();
		assertThat(fencedWrite(redis.connections(), "resource", staleToken, "stale")).isFalse();
		Object newOwnerKey = this.server.command("HGETALL", "rk:lock:{orders}");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lock::unlock)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(staleToken))
			.isInstanceOf(IllegalMonitorStateException.class);
		assertThat(this.server.command("HGETALL", "rk:lock:{orders}")).isEqualTo(newOwnerKey);
		assertThat(this.server.command("HGET", "resource", "value")).isEqualTo("second");
		assertThat(this.listener.events).contains("lost orders " + staleToken);
		newOwner.close();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void watchdogReportsALockTakenAwayAndNeverRevivesIt() {
		this.factory.close();
		this.factory = factory(LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(300)));
		RedisLock lock = this.factory.getLock("orders");
		Lease lease = lock.acquire(Duration.ZERO);
		// Someone else's lock now (as after expiry during a pause and a new owner).
		this.server.command("HSET", "rk:lock:{orders}", "o", "someone-else");
		awaitCondition("the loss to be noticed", Duration.ofSeconds(5), () -> this.listener.count("lost") == 1);
		assertThat(lease.isActive()).isFalse();
		assertThat(this.listener.events).contains("renewal orders LOST");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		assertThat(this.server.command("HGET", "rk:lock:{orders}", "o")).isEqualTo("someone-else");
		assertThat(this.listener.count("lost")).isEqualTo(1);
		assertThat(this.factory.heldLocks()).isEmpty();
	}

	@Test
	void heldLocksListsWhatThisInstanceHolds() {
		RedisLock first = this.factory.getLock("orders", "1");
		RedisLock second = this.factory.getLock("payments");
		first.lock();
		first.lock();
		try (Lease lease = second.acquire(Duration.ZERO, Duration.ofSeconds(60))) {
			List<HeldLock> held = this.factory.heldLocks();
			assertThat(held).extracting(HeldLock::name).containsExactly("orders:1", "payments");
			assertThat(held.get(0).group()).isEqualTo("orders");
			assertThat(held.get(0).holdCount()).isEqualTo(2);
			assertThat(held.get(0).watchdog()).isTrue();
			assertThat(held.get(0).owner()).startsWith("thread:");
			assertThat(held.get(1).watchdog()).isFalse();
			assertThat(held.get(1).owner()).isEqualTo("lease");
			assertThat(held.get(1).fencingToken()).isEqualTo(lease.fencingToken());
			assertThat(held.get(1).leaseRemaining()).isBetween(Duration.ofSeconds(50), Duration.ofSeconds(60));
		}
		first.unlock();
		first.unlock();
		assertThat(this.factory.heldLocks()).isEmpty();
	}

	@Test
	void clientStateStaysBoundedOverManyNames() throws Exception {
		List<Future<?>> tasks = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			int offset = t;
			tasks.add(this.executor.submit(() -> {
				for (int i = 0; i < 2_500; i++) {
					RedisLock lock = this.factory.getLock("name", Integer.toString(i % 50 == 0 ? 0 : i * 4 + offset));
					lock.lock();
					lock.unlock();
				}
			}));
		}
		for (Future<?> task : tasks) {
			task.get();
		}
		assertThat(this.factory.heldLocks()).isEmpty();
		assertThat(this.factory.signals().subscribedChannels()).isZero();
		assertThat(this.server.command("KEYS", "rk:lock:{*}")).isEqualTo(List.of());
	}

	@Test
	void namesWithBracesAndHugeKeysStayInTheirOwnSlot() {
		RedisLock lock = this.factory.getLock("orders", "}{x}" + "y".repeat(10_000));
		lock.lock();
		@SuppressWarnings("unchecked")
		List<String> keys = (List<String>) this.server.command("KEYS", "rk:lock:*");
		assertThat(keys).hasSize(2).allSatisfy((key) -> assertThat(key).hasSizeLessThan(200).contains("%7D%7Bx%7D"));
		lock.unlock();
	}

	@Test
	void aReentryKeepsTheLeaseTheLockWasTakenWith() throws Exception {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
		assertThat((Long) this.server.command("PTTL", "rk:lock:{orders}")).isGreaterThan(20_000L);
		lock.unlock();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void reenteringALockThatWasTakenAwayReportsTheLoss() {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		long token = lock.fencingToken();
		this.server.command("HSET", "rk:lock:{orders}", "o", "someone-else");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lock::tryLock)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(token));
		assertThat(this.listener.events).contains("lost orders " + token);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lock::unlock);
		assertThat(this.server.command("HGET", "rk:lock:{orders}", "o")).isEqualTo("someone-else");
		assertThat(this.factory.heldLocks()).isEmpty();
	}

	@Test
	void reenteringALockWhoseKeyIsGoneReportsTheLossInsteadOfTakingItAnew() {
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		long token = lock.fencingToken();
		// The lease ended (or the key was deleted) before the watchdog noticed.
		this.server.command("DEL", "rk:lock:{orders}");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lock::tryLock)
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(token));
		assertThat(this.listener.events).contains("lost orders " + token);
		assertThat(this.server.command("EXISTS", "rk:lock:{orders}")).as("not taken anew").isEqualTo(0L);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lock::unlock);
		assertThat(this.factory.heldLocks()).isEmpty();
	}

	@Test
	void failingListenersBreakNeitherLocksNorTheWatchdog() {
		this.factory.close();
		LockTesting.RecordingListener recording = this.listener;
		LockListener failing = new LockListener() {

			@Override
			public void onLeaseLost(String lockName, long fencingToken) {
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void onRenewal(String lockName, RenewalResult result) {
				recording.onRenewal(lockName, result);
				throw new IllegalStateException("listener bug");
			}

		};
		this.factory = new LockRegistry(redis.scripts(), redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(300)), List.of(failing), Clock.systemUTC());
		RedisLock lock = this.factory.getLock("orders");
		lock.lock();
		awaitCondition("renewals despite the failing listener", Duration.ofSeconds(10),
				() -> this.listener.count("renewal orders RENEWED") >= 3);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.factory.getLock("orders").newCondition());
	}

	@Test
	void invalidArgumentsAreRejectedWithTheReason() {
		assertThatThrownBy(() -> this.factory.getLock(""))
			.hasMessage("Lock name must be " + Names.DATA_RULE + ", was 0 characters long");
		RedisLock lock = this.factory.getLock("orders");
		assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ZERO)).hasMessageContaining("leaseTime");
		assertThatThrownBy(() -> LockSpec.defaults().withWatchdogTimeout(Duration.ofSeconds(-1)))
			.hasMessageContaining("watchdogTimeout");
	}

	@Test
	void worksOnVirtualThreads() throws Exception {
		ExecutorService virtual;
		try {
			virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (NoSuchMethodException ex) {
			org.junit.jupiter.api.Assumptions.abort("virtual threads need Java 21");
			return;
		}
		RedisLock lock = this.factory.getLock("orders");
		List<CompletableFuture<Void>> tasks = new ArrayList<>();
		try (RedisConnectionCounter counter = new RedisConnectionCounter()) {
			for (int t = 0; t < 50; t++) {
				tasks.add(CompletableFuture.runAsync(() -> {
					for (int i = 0; i < 10; i++) {
						lock.lock();
						try {
							counter.increment();
						}
						finally {
							lock.unlock();
						}
					}
				}, virtual));
			}
			CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			assertThat(counter.value()).isEqualTo(500);
		}
		finally {
			virtual.shutdown();
		}
	}

	/** A counter in Redis incremented without atomicity: only the lock keeps it exact. */
	private static final class RedisConnectionCounter implements AutoCloseable {

		private final org.springframework.data.redis.connection.RedisConnection connection = redis.connections().getConnection();

		void increment() {
			LockTesting.unsafeIncrement(this.connection, "vt-counter");
		}

		long value() {
			return Long.parseLong(new String(this.connection.stringCommands().get(LockTesting.bytes("vt-counter"))));
		}

		@Override
		public void close() {
			this.connection.close();
		}

	}

}

package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the semaphore promises on every deployment (standalone, Cluster, Sentinel): permits up to the total and no
 * more, waits that end when permits come back or time out, fencing tokens that increase, leases the watchdog
 * renews and that end with their holder, the total changed at run time, asynchronous acquisition and
 * cancellation, and the bound under many threads of two registries checked by an independent {@link PermitLog}.
 */
class SemaphoreContractTests extends TopologyContract {

	/** Short, so that a lease ends within a test; renewed every third of it. */
	static final Duration WATCHDOG = Duration.ofMillis(600);

	SemaphoreTesting.RecordingListener listener;

	SemaphoreRegistry registry;

	SemaphoreRegistry other;

	@BeforeEach
	void open() {
		this.listener = new SemaphoreTesting.RecordingListener();
		this.registry = registry(this.listener);
		this.other = registry(new SemaphoreTesting.RecordingListener());
	}

	@AfterEach
	void close() {
		this.registry.close();
		this.other.close();
	}

	SemaphoreRegistry registry(SemaphoreListener listener) {
		LockSpec spec = LockSpec.defaults().withWatchdogTimeout(WATCHDOG).withMaxPollInterval(Duration.ofMillis(200));
		return LockTesting.observed(new SemaphoreRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), spec, List.of(listener), Clock.systemUTC()), listener);
	}

	@Test
	void listsTheSemaphoresItHandedOutWithEveryInstancesPermitsInRedis() {
		String name = this.redis.unique("listed");
		RedisSemaphore here = this.registry.getSemaphore(name, 4);
		Lease two = this.other.getSemaphore(name, 4).acquire(2, Duration.ZERO);
		assertThat(here.permits()).isEqualTo(new SemaphorePermits(4, 2));
		assertThat(this.registry.semaphores()).extracting(RedisSemaphore::name).contains(name);
		assertThat(this.registry.getSemaphore(name, 4).setTotal(1)).as("held now").isEqualTo(2);
		assertThat(here.permits()).as("shrunk below the permits held").isEqualTo(new SemaphorePermits(1, 2));
		here.clearTotal();
		two.close();
		assertThat(here.permits()).isEqualTo(new SemaphorePermits(4, 0));
		assertThat(this.registry.semaphores().stream().filter((each) -> each.name().equals(name)))
			.as("one handle per name, the last").singleElement();
	}

	@Test
	void readsTheSemaphoreAnotherInstanceUsesWithoutListingIt() {
		String name = this.redis.unique("read");
		Lease two = this.other.getSemaphore(name, 4).acquire(2, Duration.ZERO);
		assertThat(this.registry.permits(name, 4)).isEqualTo(new SemaphorePermits(4, 2));
		assertThat(this.registry.semaphores()).extracting(RedisSemaphore::name).doesNotContain(name);
		two.close();
		assertThat(this.registry.permits(name, 4)).isEqualTo(new SemaphorePermits(4, 0));
	}

	@Test
	void grantsPermitsUpToTheTotalAcrossInstancesAndNoMore() {
		String name = this.redis.unique("reports");
		RedisSemaphore here = this.registry.getSemaphore(name, 3);
		RedisSemaphore there = this.other.getSemaphore(name, 3);
		Lease two = here.acquire(2, Duration.ZERO);
		Lease one = there.acquire(1, Duration.ZERO);
		assertThat(here.availablePermits()).isZero();
		assertThat(there.tryAcquire(1, Duration.ZERO)).isEmpty();
		assertThat(one.fencingToken()).isGreaterThan(two.fencingToken());
		one.close();
		assertThat(here.availablePermits()).isEqualTo(1);
		assertThat(there.tryAcquire(2, Duration.ZERO)).as("two when one is free").isEmpty();
		two.close();
		Lease three = there.acquire(3, Duration.ZERO);
		assertThat(three.fencingToken()).isGreaterThan(one.fencingToken());
		assertThat(this.registry.heldPermits()).isEmpty();
		assertThat(this.other.heldPermits()).extracting(HeldLock::name).containsExactly(name);
		three.close();
		assertThat(this.redis.exists(KeyNaming.defaults().key("semaphore", name))).as("holders").isFalse();
		assertThat(this.listener.events).containsExactly("acquire " + name + " ACQUIRED", "release " + name);
	}

	@Test
	void aWaiterGetsThePermitsWhenTheyAreReleased() throws Exception {
		String name = this.redis.unique("waits");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 2);
		Lease held = this.other.getSemaphore(name, 2).acquire(2, Duration.ZERO);
		CompletableFuture<Lease> waiting = CompletableFuture
			.supplyAsync(() -> semaphore.acquire(1, Duration.ofSeconds(20)));
		CompletionStageWaiter.notDoneWithin(waiting, Duration.ofMillis(300));
		held.close();
		try (Lease lease = waiting.get(20, TimeUnit.SECONDS)) {
			assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
		}
	}

	@Test
	void aWaitTimesOutWithTheSemaphoresName() {
		String name = this.redis.unique("full");
		try (Lease held = this.other.getSemaphore(name, 1).acquire(1, Duration.ZERO)) {
			assertThatExceptionOfType(SemaphoreNotAcquiredException.class)
				.isThrownBy(() -> this.registry.getSemaphore(name, 1).acquire(1, Duration.ofMillis(100)))
				.withMessage("1 permit of semaphore '" + name + "' were not acquired within PT0.1S")
				.isInstanceOf(LockNotAcquiredException.class);
			assertThat(held.isActive()).isTrue();
		}
	}

	@Test
	void refusesPermitsOutOfRange() {
		String name = this.redis.unique("range");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 2);
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.acquire(0, Duration.ZERO))
			.withMessage("permits must be at least 1, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> semaphore.acquire(3, Duration.ofSeconds(5)))
			.withMessage("permits (3) must not exceed the semaphore's total in force (2)")
			.withMessageNotContaining(name);
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.getSemaphore(name, 0))
			.withMessage("total of a semaphore must be at least 1, was 0");
	}

	@Test
	void theWatchdogKeepsALeaseWhileItsHolderLives() {
		String name = this.redis.unique("renewed");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		try (Lease lease = semaphore.acquire(1, Duration.ZERO)) {
			// Three watchdog timeouts: an unrenewed lease would have ended twice over.
			awaitCondition("renewals", Duration.ofSeconds(10),
					() -> this.listener.count("renewal " + name + " RENEWED") >= 6);
			assertThat(this.other.getSemaphore(name, 1).tryAcquire(1, Duration.ZERO)).isEmpty();
			assertThat(lease.isActive()).isTrue();
		}
		assertThat(this.other.getSemaphore(name, 1).tryAcquire(1, Duration.ZERO)).isPresent();
	}

	@Test
	void permitsComeBackWhenALeaseEndsAndTheLateReleaseSaysItWasLost() {
		String name = this.redis.unique("expired");
		Lease lease = this.registry.getSemaphore(name, 1).acquire(1, Duration.ZERO, Duration.ofMillis(200));
		// The lease is not renewed: another instance gets the permit once it ends.
		try (Lease next = this.other.getSemaphore(name, 1).acquire(1, Duration.ofSeconds(10))) {
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
			assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
			assertThat(this.other.getSemaphore(name, 1).availablePermits()).as("the late release freed nothing")
				.isZero();
		}
	}

	@Test
	void aLeaseLostWhileHeldIsReportedByTheWatchdog() {
		String name = this.redis.unique("taken");
		Lease lease = this.registry.getSemaphore(name, 1).acquire(1, Duration.ZERO);
		// Someone deletes the holders behind the semaphore's back: the next renewal finds the lease gone.
		try (var connection = this.redis.connections().getConnection()) {
			connection.keyCommands().del(LockTesting.bytes(KeyNaming.defaults().key("semaphore", name)));
		}
		awaitCondition("lost lease", Duration.ofSeconds(10), () -> this.listener.count("lost " + name) == 1);
		assertThat(lease.isActive()).isFalse();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
	}

	@Test
	void shrinkingTheTotalRevokesNothingAndGrowingItWakesWaiters() throws Exception {
		String name = this.redis.unique("resized");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 3);
		Lease first = semaphore.acquire(1, Duration.ZERO);
		Lease second = semaphore.acquire(1, Duration.ZERO);
		assertThat(this.other.getSemaphore(name, 3).setTotal(1)).as("held when shrunk").isEqualTo(2);
		assertThat(first.isActive()).isTrue();
		assertThat(semaphore.availablePermits()).isZero();
		first.close();
		assertThat(semaphore.tryAcquire(1, Duration.ZERO)).as("one held, total 1").isEmpty();
		assertThatIllegalArgumentException().as("more than the total in force")
			.isThrownBy(() -> semaphore.acquire(2, Duration.ofSeconds(5)));
		CompletableFuture<Lease> waiting = semaphore.acquireAsync(1, Duration.ofSeconds(20)).toCompletableFuture();
		CompletionStageWaiter.notDoneWithin(waiting, Duration.ofMillis(300));
		assertThat(semaphore.setTotal(3)).isEqualTo(1);
		waiting.get(20, TimeUnit.SECONDS).close();
		second.close();
		assertThat(semaphore.clearTotal()).isZero();
		assertThat(this.other.getSemaphore(name, 5).availablePermits()).as("configured total again").isEqualTo(5);
	}

	@Test
	void asynchronousAcquisitionWaitsWithoutAThreadAndCancellationLeavesNothing() throws Exception {
		String name = this.redis.unique("async");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		Lease held = this.other.getSemaphore(name, 1).acquire(1, Duration.ZERO);
		CompletableFuture<Lease> cancelled = semaphore.acquireAsync(1, Duration.ofSeconds(20)).toCompletableFuture();
		CompletableFuture<Lease> waiting = semaphore.acquireAsync(1, Duration.ofSeconds(20)).toCompletableFuture();
		cancelled.cancel(false);
		held.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		Lease lease = waiting.get(20, TimeUnit.SECONDS);
		assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
		lease.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		assertThat(semaphore.availablePermits()).isEqualTo(1);
		assertThat(this.registry.heldPermits()).isEmpty();
		assertThat(semaphore.acquireAsync(1, Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS).isActive())
			.isTrue();
	}

	@Test
	void aCancelledAsynchronousWaitIsReportedOnceAndNeverAsAcquired() throws Exception {
		String name = this.redis.unique("cancel-reported");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		RedisSemaphore holder = this.other.getSemaphore(name, 1);
		int rounds = 40;
		int acquired = 0;
		for (int round = 0; round < rounds; round++) {
			Lease held = holder.acquire(1, Duration.ofSeconds(10));
			CompletableFuture<Lease> wait = semaphore.acquireAsync(1, Duration.ofSeconds(30)).toCompletableFuture();
			// Even rounds cancel a wait the holder keeps; odd ones race the cancel with the release, so that an
			// attempt may take the permit while or after the caller cancels.
			CompletionStage<?> released = (round % 2 == 1) ? held.releaseAsync() : null;
			if (!wait.cancel(false)) {
				wait.join().close();
				acquired++;
			}
			int outcomes = round + 1;
			// At least, then exactly: a wait reported twice must fail here, not time out waiting for a count.
			awaitCondition("the outcome of wait " + outcomes, Duration.ofSeconds(10),
					() -> this.listener.count("acquire " + name) >= outcomes);
			assertThat(this.listener.count("acquire " + name)).as("one outcome per wait: %s", this.listener.events)
				.isEqualTo(outcomes);
			if (released != null) {
				released.toCompletableFuture().get(10, TimeUnit.SECONDS);
			}
			else {
				held.close();
			}
		}
		awaitCondition("no permit held", Duration.ofSeconds(10), () -> this.registry.heldPermits().isEmpty());
		assertThat(this.listener.count("acquire " + name + " ACQUIRED")).as("only waits granted before the cancel")
			.isEqualTo(acquired);
		assertThat(this.listener.count("acquire " + name + " INTERRUPTED")).isEqualTo(rounds - acquired);
		awaitCondition("every permit back", Duration.ofSeconds(10), () -> semaphore.availablePermits() == 1);
	}

	/**
	 * A caller that ends its stage itself ends the wait at once: each outcome is reported while the holder still
	 * holds the permit, minutes before the wait's own time; a stage ended with the caller's
	 * {@link TimeoutException} as a timeout, a completed one as interrupted. Neither wait takes the permit once it
	 * is released.
	 */
	@Test
	void aStageTheCallerEndsItselfEndsTheWaitAtOnce() throws Exception {
		String name = this.redis.unique("caller-ends");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		try (Lease held = this.other.getSemaphore(name, 1).acquire(1, Duration.ofSeconds(10))) {
			CompletableFuture<Lease> timedOut = semaphore.acquireAsync(1, Duration.ofMinutes(5)).toCompletableFuture();
			assertThat(timedOut.completeExceptionally(new TimeoutException("deadline"))).isTrue();
			awaitCondition("the outcome of the wait the caller timed out", Duration.ofSeconds(10),
					() -> this.listener.count("acquire " + name) >= 1);
			CompletableFuture<Lease> completed = semaphore.acquireAsync(1, Duration.ofMinutes(5)).toCompletableFuture();
			assertThat(completed.complete(null)).isTrue();
			awaitCondition("the outcome of the wait the caller completed", Duration.ofSeconds(10),
					() -> this.listener.count("acquire " + name) >= 2);
			assertThat(held.isActive()).isTrue();
		}
		assertThat(this.listener.events).as("each end as the caller saw it")
			.containsExactly("acquire " + name + " TIMEOUT", "acquire " + name + " INTERRUPTED");
		assertThat(this.registry.heldPermits()).isEmpty();
		assertThat(semaphore.availablePermits()).isEqualTo(1);
	}

	@Test
	void manyThreadsOfTwoInstancesNeverHoldMoreThanTheTotal() throws Exception {
		String name = this.redis.unique("bound");
		int total = 3;
		PermitLog log = new PermitLog();
		ExecutorService executor = Executors.newFixedThreadPool(12);
		try {
			List<Future<?>> tasks = new ArrayList<>();
			for (int t = 0; t < 12; t++) {
				RedisSemaphore semaphore = ((t % 2 == 0) ? this.registry : this.other).getSemaphore(name, total);
				int permits = 1 + (t % 3 == 0 ? 1 : 0);
				tasks.add(executor.submit(() -> {
					for (int i = 0; i < 15; i++) {
						try (Lease lease = semaphore.acquire(permits, Duration.ofSeconds(30))) {
							long entered = System.nanoTime();
							// Work that lasts: holds of a few instructions would rarely overlap in the log.
							Thread.sleep(1);
							log.record(entered, System.nanoTime(), permits, lease.fencingToken());
						}
					}
					return null;
				}));
			}
			for (Future<?> task : tasks) {
				task.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(log.size()).isEqualTo(12 * 15);
		assertThat(log.violations(total)).isEmpty();
		assertThat(log.maxHeld()).as("the semaphore let holders in together").isGreaterThan(1);
		assertThat(this.registry.getSemaphore(name, total).availablePermits()).isEqualTo(total);
	}

	/**
	 * The caller cancels as the permits are handed over (as the hold's observation starts, before the stage takes
	 * the lease): interrupted, never acquired, no release reported, and the permit back at once.
	 */
	@Test
	void aCancelAsThePermitsAreHandedOverIsReportedAsInterruptedAndGivesThemBack() throws Exception {
		String name = this.redis.unique("handover");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		Lease held = this.other.getSemaphore(name, 1).acquire(1, Duration.ofSeconds(10));
		CompletableFuture<Lease> wait = semaphore.acquireAsync(1, Duration.ofSeconds(20)).toCompletableFuture();
		AtomicReference<Boolean> cancelled = new AtomicReference<>();
		this.listener.onNextHoldStart(() -> cancelled.set(wait.cancel(false)));
		held.close();
		awaitCondition("the outcome of the wait", Duration.ofSeconds(10), () -> this.listener.count("acquire " + name) >= 1);
		assertThat(cancelled.get()).as("cancelled as the permits were handed over").isTrue();
		assertThat(wait).isCancelled();
		awaitCondition("no permit held", Duration.ofSeconds(10), () -> this.registry.heldPermits().isEmpty());
		awaitCondition("the permit back", Duration.ofSeconds(10), () -> semaphore.availablePermits() == 1);
		assertThat(this.listener.events).as("one outcome, and no release")
			.containsExactly("acquire " + name + " INTERRUPTED");
	}

	/**
	 * The caller cancels as the wait runs out, the moment its outcome is reported: the stage took the timeout
	 * first (it decides, as for a grant), so the cancel finds it ended and the listeners heard what the caller saw.
	 */
	@Test
	void aCancelAsTheWaitRunsOutFindsTheStageEndedWithTheOutcomeReported() throws Exception {
		String name = this.redis.unique("cancel-timeout");
		RedisSemaphore semaphore = this.registry.getSemaphore(name, 1);
		AtomicReference<Boolean> cancelled = new AtomicReference<>();
		try (Lease held = this.other.getSemaphore(name, 1).acquire(1, Duration.ofSeconds(10))) {
			CompletableFuture<CompletableFuture<Lease>> stage = new CompletableFuture<>();
			// Set before the wait starts; the wait's end, on another thread, finds the stage once it is returned.
			this.listener.onNextEnd(() -> cancelled.set(stage.join().cancel(false)));
			CompletableFuture<Lease> wait = semaphore.acquireAsync(1, Duration.ofMillis(200)).toCompletableFuture();
			stage.complete(wait);
			awaitCondition("the outcome of the wait", Duration.ofSeconds(20),
					() -> this.listener.count("acquire " + name) >= 1);
			assertThat(cancelled.get()).as("a cancel once the outcome is reported").isFalse();
			assertThat(wait).as("the stage the caller saw").isCompletedExceptionally().isNotCancelled();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(wait::get)
				.withCauseInstanceOf(SemaphoreNotAcquiredException.class);
		}
		assertThat(this.listener.events).as("the outcome the caller saw")
			.containsExactly("acquire " + name + " TIMEOUT");
	}

}

package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Names;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static io.rediskit.lock.LockEngine.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What the multi-key lock promises, on standalone, Cluster and Sentinel: all or none, the single lock of each
 * name excluded, one script where the names share a slot (every name off Cluster), ordered steps across slots on
 * Cluster, no deadlock and no overlap when sets that overlap are taken in opposite orders (checked by one
 * {@link HoldLog} per name, which knows nothing of the lock), a lost name that makes the set lost, and a cancelled
 * wait that leaves nothing held.
 */
class MultiLockContractTests extends TopologyContract {

	LockRegistry registry;

	LockRegistry other;

	@BeforeEach
	void open() {
		this.registry = registry();
		this.other = registry();
	}

	@AfterEach
	void close() {
		this.registry.close();
		this.other.close();
	}

	private LockRegistry recorded(LockTesting.RecordingListener listener) {
		return LockTesting.observed(new LockRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), LockSpec.defaults(), List.of(listener), Clock.systemUTC()), listener);
	}

	private LockRegistry registry() {
		return new LockRegistry(TopologyScripts.of(this.redis), this.redis.connections(), KeyNaming.defaults(),
				LockSpec.defaults(), List.of(), Clock.systemUTC());
	}

	@Test
	void takesAllOrNoneAndExcludesTheSingleLocks() throws Exception {
		String a = this.redis.unique("account-a");
		String b = this.redis.unique("account-b");
		String c = this.redis.unique("account-c");
		MultiLock multi = this.registry.getMultiLock(c, a, b);
		// The name taken last is the busy one: on Cluster the steps before it are taken, and must be free again
		// when the call returns.
		String busyName = multi.names().get(2);
		try (Lease busy = this.other.getLock(busyName).acquire(Duration.ZERO)) {
			assertThat(multi.tryAcquire(Duration.ZERO, null)).as("one name busy").isEmpty();
			assertThat(this.registry.heldLocks()).as("released before the call returned").isEmpty();
			assertThat(this.redis.exists(key(multi.names().get(0)))).as("nothing taken of the free names").isFalse();
			assertThat(this.redis.exists(key(multi.names().get(1)))).isFalse();
			assertThat(busy.isActive()).isTrue();
		}
		try (MultiLock.MultiLease lease = multi.acquire(Duration.ZERO)) {
			assertThat(lease.lockNames()).containsExactlyInAnyOrder(a, b, c);
			for (String name : List.of(a, b, c)) {
				assertThat(this.redis.exists(key(name))).as(name).isTrue();
				assertThat(this.other.getLock(name).tryAcquire(Duration.ZERO, null)).as("single lock " + name)
					.isEmpty();
				assertThat(lease.fencingToken(name)).isPositive();
			}
			assertThat(this.other.getMultiLock(a, c).tryAcquire(Duration.ZERO, null)).as("an overlapping set")
				.isEmpty();
			assertThat(lease.isActive()).isTrue();
			assertThatIllegalArgumentException().isThrownBy(() -> lease.fencingToken("elsewhere"))
				.withMessage("name is not one of the 3 full lock names of this lease (lockNames())")
				.withMessageNotContaining("elsewhere")
				.withMessageNotContaining(a);
			long token = lease.fencingToken(a);
			lease.close();
			assertThat(lease.isActive()).isFalse();
			try (Lease next = this.other.getLock(a).acquire(Duration.ZERO)) {
				assertThat(next.fencingToken()).as("the single lock's next token").isGreaterThan(token);
			}
		}
		for (String name : List.of(a, b, c)) {
			assertThat(this.redis.exists(key(name))).as(name + " left").isFalse();
		}
	}

	/**
	 * A set that times out after taking steps (on Cluster, the names before the busy one) completes only once those
	 * steps are given back, and they were never the caller's: their holds end abandoned, no release is reported,
	 * and each name's wait ends timed out.
	 */
	@Test
	void aTimedOutAcquisitionCompletesOnlyOnceWhatItTookIsGivenBackAndReportsNoRelease() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		try (LockRegistry recorded = recorded(listener)) {
			MultiLock multi = recorded.getMultiLock(this.redis.unique("first"), this.redis.unique("second"),
					this.redis.unique("third"));
			List<String> names = multi.names();
			List<String> takenFirst = (this.topology == Topology.CLUSTER) ? names.subList(0, 2) : List.of();
			List<String> heldAtCompletion = new CopyOnWriteArrayList<>();
			try (Lease busy = this.other.getLock(names.get(2)).acquire(Duration.ZERO)) {
				// Read from the servers on the thread that completes the stage, as it completes.
				multi.acquireAsync(Duration.ZERO, null)
					.whenComplete((lease, failure) -> names.subList(0, 2).stream()
						.filter((name) -> this.redis.exists(key(name)))
						.forEach(heldAtCompletion::add))
					.exceptionally((failure) -> null)
					.toCompletableFuture()
					.get(10, TimeUnit.SECONDS);
			}
			assertThat(heldAtCompletion).as("names still held as the stage completed").isEmpty();
			assertThat(listener.abandoned()).as("the steps taken before the busy one, never the caller's")
				.containsExactlyInAnyOrderElementsOf(takenFirst);
			// The outcome is reported just after the stage took it, on the thread that completed it.
			LockTesting.awaitCondition("each name's wait reported", Duration.ofSeconds(10),
					() -> listener.events.size() >= names.size());
			assertThat(listener.events).as("each name's wait timed out, and no release")
				.containsExactlyInAnyOrderElementsOf(names.stream().map((name) -> "acquire " + name + " TIMEOUT").toList());
			assertThat(recorded.heldLocks()).isEmpty();
		}
	}

	/**
	 * The caller cancels as the wait runs out: at the first end the wait makes, the hold of a step given back on
	 * Cluster, or else the report of the timeout. The outcome every name's wait reports is the one the caller's
	 * stage saw. On Cluster the cancel comes while the steps are given back, before the stage ends: interrupted;
	 * elsewhere the stage took the timeout before it was reported, and the cancel finds it ended.
	 */
	@Test
	void aCancelAsTheWaitRunsOutIsReportedAsTheCallersStageSawIt() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		try (LockRegistry recorded = recorded(listener)) {
			MultiLock multi = recorded.getMultiLock(this.redis.unique("cancel-timeout-a"),
					this.redis.unique("cancel-timeout-b"), this.redis.unique("cancel-timeout-c"));
			List<String> names = multi.names();
			boolean stepsTaken = this.topology == Topology.CLUSTER;
			AtomicReference<Boolean> cancelled = new AtomicReference<>();
			CompletableFuture<MultiLock.MultiLease> wait;
			try (Lease busy = this.other.getLock(names.get(2)).acquire(Duration.ZERO)) {
				CompletableFuture<CompletableFuture<MultiLock.MultiLease>> stage = new CompletableFuture<>();
				// Set before the wait starts; the wait's end, on another thread, finds the stage once it is returned.
				listener.onNextEnd(() -> cancelled.set(stage.join().cancel(false)));
				wait = multi.acquireAsync(Duration.ofMillis(200), null).toCompletableFuture();
				stage.complete(wait);
				LockTesting.awaitCondition("the outcome of every name's wait", Duration.ofSeconds(20),
						() -> listener.count("acquire ") >= names.size());
			}
			assertThat(cancelled.get()).as("cancelled before the stage ended").isEqualTo(stepsTaken);
			String outcome = stepsTaken ? "INTERRUPTED" : "TIMEOUT";
			assertThat(listener.events).as("the outcome the caller saw, and no release")
				.containsExactlyInAnyOrderElementsOf(names.stream().map((name) -> "acquire " + name + " " + outcome).toList());
			if (stepsTaken) {
				assertThat(wait).isCancelled();
			}
			else {
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(wait::get)
					.withCauseInstanceOf(LockNotAcquiredException.class);
			}
			LockTesting.awaitCondition("nothing held by the wait", Duration.ofSeconds(10),
					() -> recorded.heldLocks().isEmpty() && names.stream().noneMatch((name) -> this.redis.exists(key(name))));
		}
	}

	/**
	 * A thread interrupted while it waits for a busy name (on Cluster, holding the steps before it): the call
	 * throws with the interrupt flag set, and when it does, no hold is registered and no name it took is held in
	 * Redis; the busy name's holder keeps it.
	 */
	@Test
	void anInterruptedTryAcquireReturnsWithNothingHeld() throws Exception {
		MultiLock multi = this.registry.getMultiLock(this.redis.unique("interrupted-a"),
				this.redis.unique("interrupted-b"), this.redis.unique("interrupted-c"));
		List<String> names = multi.names();
		List<String> free = names.subList(0, 2);
		AtomicReference<Object> outcome = new AtomicReference<>();
		AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
		AtomicReference<List<HeldLock>> heldOnReturn = new AtomicReference<>();
		List<String> keysOnReturn = new CopyOnWriteArrayList<>();
		try (Lease busy = this.other.getLock(names.get(2)).acquire(Duration.ZERO)) {
			Thread waiter = new Thread(() -> {
				try {
					outcome.set(multi.tryAcquire(Duration.ofSeconds(30), null));
				}
				catch (LockNotAcquiredException ex) {
					outcome.set(ex);
				}
				// As the call returns, before anything else runs on this thread.
				interruptFlag.set(Thread.currentThread().isInterrupted());
				heldOnReturn.set(this.registry.heldLocks());
				free.stream().filter((name) -> this.redis.exists(key(name))).forEach(keysOnReturn::add);
			});
			waiter.start();
			if (this.topology == Topology.CLUSTER) {
				LockTesting.awaitCondition("the steps before the busy name taken", Duration.ofSeconds(10),
						() -> free.stream().allMatch((name) -> this.redis.exists(key(name))));
			}
			LockTesting.awaitCondition("the waiter to block", Duration.ofSeconds(10),
					() -> waiter.getState() == Thread.State.WAITING);
			waiter.interrupt();
			waiter.join(TimeUnit.SECONDS.toMillis(20));
			assertThat(waiter.isAlive()).isFalse();
			assertThat(outcome.get()).isInstanceOf(LockNotAcquiredException.class);
			assertThat(((Throwable) outcome.get()).getCause()).isInstanceOf(InterruptedException.class);
			assertThat(interruptFlag.get()).as("the interrupt flag set again").isTrue();
			assertThat(heldOnReturn.get()).as("holds registered as the call returned").isEmpty();
			assertThat(keysOnReturn).as("names held in Redis as the call returned").isEmpty();
			assertThat(busy.isActive()).isTrue();
		}
	}

	@Test
	void oneScriptWhereTheNamesShareASlotOrderedStepsAcrossSlots() throws Exception {
		List<String> names = List.of(this.redis.unique("z"), this.redis.unique("m"), this.redis.unique("a"),
				this.redis.unique("q"));
		MultiLock multi = this.registry.getMultiLock(names);
		if (this.topology != Topology.CLUSTER) {
			assertThat(multi.isAtomic()).as("one server: one script").isTrue();
			assertThat(multi.names()).isSorted();
		}
		else {
			assertThat(multi.isAtomic()).as("four names in four slots").isFalse();
			assertThat(multi.steps()).isEqualTo(4);
			assertThat(multi.names().stream().mapToInt((name) -> ClusterSlotHashUtil.calculateSlot(key(name))))
				.as("taken by slot").isSorted();
			// Names whose keys share a slot, found by trying: one step, atomic, on Cluster too.
			String first = this.redis.unique("same-slot");
			int slot = ClusterSlotHashUtil.calculateSlot(key(first));
			String second = null;
			for (int i = 0; second == null; i++) {
				if (ClusterSlotHashUtil.calculateSlot(key(first + i)) == slot) {
					second = first + i;
				}
			}
			MultiLock sameSlot = this.registry.getMultiLock(first, second);
			assertThat(sameSlot.isAtomic()).isTrue();
			try (MultiLock.MultiLease lease = sameSlot.acquire(Duration.ZERO)) {
				assertThat(this.redis.exists(key(second))).isTrue();
			}
		}
		try (MultiLock.MultiLease lease = multi.acquire(Duration.ZERO)) {
			assertThat(lease.lockNames()).isEqualTo(multi.names());
			assertThat(this.registry.heldLocks()).hasSize(4);
		}
		assertThat(this.registry.heldLocks()).isEmpty();
	}

	@Test
	void overlappingSetsInOppositeOrdersNeverDeadlockNorOverlap() throws Exception {
		String x = this.redis.unique("x");
		String y = this.redis.unique("y");
		String z = this.redis.unique("z");
		// Every set holds y; each name has its own checker, fed with that name's token.
		List<List<String>> sets = List.of(List.of(x, y, z), List.of(z, y, x), List.of(y, x), List.of(z, y));
		Map<String, HoldLog> logs = Map.of(x, new HoldLog(), y, new HoldLog(), z, new HoldLog());
		int iterations = 12;
		AtomicInteger timeouts = new AtomicInteger();
		ExecutorService executor = Executors.newFixedThreadPool(sets.size() * 2);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < sets.size() * 2; t++) {
				List<String> set = sets.get(t % sets.size());
				// Two instances, so that the sets race through Redis and not only through one client.
				LockRegistry registry = (t % 2 == 0) ? this.registry : this.other;
				workers.add(executor.submit(() -> {
					MultiLock multi = registry.getMultiLock(set);
					for (int i = 0; i < iterations; i++) {
						MultiLock.MultiLease lease;
						try {
							lease = multi.acquire(Duration.ofSeconds(20));
						}
						catch (LockNotAcquiredException ex) {
							timeouts.incrementAndGet();
							continue;
						}
						long entered = HoldLog.now();
						Thread.onSpinWait();
						long left = HoldLog.now();
						for (String name : set) {
							logs.get(name).record(entered, left, lease.fencingToken(name));
						}
						lease.close();
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(timeouts).as("acquisitions that waited 20 s: a deadlock").hasValue(0);
		assertThat(logs.get(y).size()).isEqualTo(sets.size() * 2 * iterations);
		for (Map.Entry<String, HoldLog> log : logs.entrySet()) {
			assertThat(log.getValue().violations()).as("holds of " + log.getKey()).isEmpty();
		}
		for (String name : List.of(x, y, z)) {
			assertThat(this.redis.exists(key(name))).as(name + " left").isFalse();
		}
	}

	@Test
	void aLostNameMakesTheSetLostAndTheRestIsFreed() throws Exception {
		String a = this.redis.unique("lost-a");
		String b = this.redis.unique("lost-b");
		MultiLock.MultiLease lease = this.registry.getMultiLock(a, b).acquire(Duration.ZERO);
		this.redis.masterFor(key(b)).command("DEL", key(b));
		this.registry.shell().renewNow();
		LockTesting.awaitCondition("the lost name noticed", Duration.ofSeconds(10), () -> !lease.isActive());
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		assertThat(this.redis.exists(key(a))).as("the name still held, freed").isFalse();
	}

	@Test
	void aCancelledWaitLeavesNothingHeld() throws Exception {
		String a = this.redis.unique("cancel-a");
		String b = this.redis.unique("cancel-b");
		// The busy name is taken last, so that on Cluster the wait holds the first step when it is cancelled.
		boolean slotOrder = this.topology == Topology.CLUSTER;
		String last = (!slotOrder || ClusterSlotHashUtil.calculateSlot(key(a)) < ClusterSlotHashUtil
			.calculateSlot(key(b))) ? b : a;
		String first = last.equals(b) ? a : b;
		CompletableFuture<MultiLock.MultiLease> waiting;
		try (Lease busy = this.other.getLock(last).acquire(Duration.ZERO)) {
			waiting = this.registry.getMultiLock(a, b).acquireAsync(Duration.ofSeconds(30), null).toCompletableFuture();
			if (slotOrder) {
				LockTesting.awaitCondition("the first step taken", Duration.ofSeconds(10),
						() -> this.redis.exists(key(first)));
			}
			else {
				assertThat(this.redis.exists(key(first))).as("one script: nothing taken while one is busy").isFalse();
			}
			waiting.cancel(false);
		}
		LockTesting.awaitCondition("nothing held by the cancelled wait", Duration.ofSeconds(10),
				() -> this.registry.heldLocks().isEmpty() && !this.redis.exists(key(a)) && !this.redis.exists(key(b)));
		assertThat(waiting).isCancelled();
	}

	/**
	 * The registry stops (the application shuts down) while an asynchronous set waits between two attempts at its
	 * busy name, and the scheduler never runs the retry, as a scheduler shut down with the retry queued drops it: the
	 * stop ends the wait. The stage fails with the stop once every step taken is given back (on Cluster, the names
	 * before the busy one): no hold and no name held when it fails, the busy name's holder untouched, and each name's
	 * wait reported as an error.
	 */
	@Test
	void aStopBetweenTwoAttemptsEndsTheWaitAndGivesBackEveryStep() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		KeepingScheduler scheduler = new KeepingScheduler();
		scheduler.initialize();
		try (LockRegistry recorded = recorded(listener)) {
			recorded.setBackground(Background.of(scheduler, null));
			MultiLock multi = recorded.getMultiLock(this.redis.unique("stop-a"), this.redis.unique("stop-b"),
					this.redis.unique("stop-c"));
			List<String> names = multi.names();
			List<String> free = names.subList(0, 2);
			try (Lease busy = this.other.getLock(names.get(2)).acquire(Duration.ZERO)) {
				CompletableFuture<MultiLock.MultiLease> wait = multi.acquireAsync(Duration.ofMinutes(5), null)
					.toCompletableFuture();
				// The busy step was answered and its retry handed to the scheduler, which keeps it: between attempts.
				assertThat(scheduler.kept.poll(10, TimeUnit.SECONDS)).as("the retry of the busy step").isNotNull();
				if (this.topology == Topology.CLUSTER) {
					assertThat(free).as("the steps before the busy name, taken")
						.allMatch((name) -> this.redis.exists(key(name)));
				}
				recorded.stop();
				assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> wait.get(10, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(IllegalStateException.class)
					.withMessageContaining("stopped");
				assertThat(recorded.heldLocks()).as("holds as the stage failed").isEmpty();
				assertThat(free).as("names held as the stage failed").noneMatch((name) -> this.redis.exists(key(name)));
				assertThat(busy.isActive()).isTrue();
			}
			LockTesting.awaitCondition("each name's wait reported", Duration.ofSeconds(10),
					() -> listener.count("acquire ") >= names.size());
			assertThat(listener.events).as("each name's wait ended by the stop, and no release")
				.containsExactlyInAnyOrderElementsOf(names.stream().map((name) -> "acquire " + name + " ERROR").toList());
		}
		finally {
			scheduler.shutdown();
		}
	}

	/**
	 * A caller whose own deadline ends the stage ({@code completeExceptionally} with a {@link TimeoutException}, as
	 * {@code orTimeout} does) ends the wait at once, minutes before its own wait time: every step taken is given back
	 * (on Cluster the names before the busy one, their holds abandoned), and each name's wait is reported as a
	 * timeout, as the caller saw it.
	 */
	@Test
	void aStageTheCallersDeadlineEndsEndsTheWaitAtOnceAndGivesBackEveryStep() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		try (LockRegistry recorded = recorded(listener)) {
			MultiLock multi = recorded.getMultiLock(this.redis.unique("deadline-a"), this.redis.unique("deadline-b"),
					this.redis.unique("deadline-c"));
			List<String> names = multi.names();
			List<String> taken = (this.topology == Topology.CLUSTER) ? names.subList(0, 2) : List.of();
			try (Lease busy = this.other.getLock(names.get(2)).acquire(Duration.ZERO)) {
				CompletableFuture<MultiLock.MultiLease> wait = multi.acquireAsync(Duration.ofMinutes(5), null)
					.toCompletableFuture();
				LockTesting.awaitCondition("the steps before the busy name taken", Duration.ofSeconds(10),
						() -> taken.stream().allMatch((name) -> this.redis.exists(key(name))));
				assertThat(wait.completeExceptionally(new TimeoutException("deadline"))).isTrue();
				LockTesting.awaitCondition("each name's wait reported", Duration.ofSeconds(10),
						() -> listener.count("acquire ") >= names.size());
				assertThat(listener.events).as("each name's wait timed out, as the caller saw it, and no release")
					.containsExactlyInAnyOrderElementsOf(
							names.stream().map((name) -> "acquire " + name + " TIMEOUT").toList());
				assertThat(listener.abandoned()).as("the steps taken, never the caller's")
					.containsExactlyInAnyOrderElementsOf(taken);
				LockTesting.awaitCondition("nothing held by the wait", Duration.ofSeconds(10),
						() -> recorded.heldLocks().isEmpty()
								&& names.subList(0, 2).stream().noneMatch((name) -> this.redis.exists(key(name))));
				assertThat(busy.isActive()).isTrue();
			}
		}
	}

	@Test
	void namesAreChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.getMultiLock(List.of()))
			.withMessageContaining("names");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.getMultiLock("a", "b", "a"))
			.withMessage("names must not repeat a name: the one at index 2 repeats an earlier one");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.getMultiLock("a", ""))
			.withMessageStartingWith("Lock name must be " + Names.DATA_RULE);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.registry.getMultiLock("a").acquire(Duration.ZERO, Duration.ZERO))
			.withMessageContaining("leaseTime");
	}

	/**
	 * The caller cancels as the set is handed over (as the last name's hold starts, before the stage takes the
	 * lease): every name's wait is interrupted, none acquired, no release reported, and every name free.
	 */
	@Test
	void aCancelAsTheSetIsHandedOverIsReportedAsInterruptedAndFreesEveryName() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		try (LockRegistry recorded = LockTesting.observed(new LockRegistry(TopologyScripts.of(this.redis),
				this.redis.connections(), KeyNaming.defaults(), LockSpec.defaults(), List.of(listener),
				Clock.systemUTC()), listener)) {
			String a = this.redis.unique("handover-a");
			String b = this.redis.unique("handover-b");
			// The busy name is the first step's, so that nothing is taken before the hook is set.
			String first = (this.topology != Topology.CLUSTER || ClusterSlotHashUtil.calculateSlot(key(a)) < ClusterSlotHashUtil
				.calculateSlot(key(b))) ? a : b;
			AtomicReference<Boolean> cancelled = new AtomicReference<>();
			CompletableFuture<MultiLock.MultiLease> waiting;
			try (Lease busy = this.other.getLock(first).acquire(Duration.ZERO)) {
				waiting = recorded.getMultiLock(a, b).acquireAsync(Duration.ofSeconds(30), null).toCompletableFuture();
				CompletableFuture<MultiLock.MultiLease> stage = waiting;
				// The second hold to start is the set's last: the set is handed over right after it.
				listener.onNextHoldStart(() -> listener.onNextHoldStart(() -> cancelled.set(stage.cancel(false))));
			}
			LockTesting.awaitCondition("the outcome of the wait", Duration.ofSeconds(10),
					() -> listener.count("acquire ") >= 2);
			assertThat(cancelled.get()).as("cancelled as the set was handed over").isTrue();
			assertThat(waiting).isCancelled();
			LockTesting.awaitCondition("nothing held by the cancelled wait", Duration.ofSeconds(10),
					() -> recorded.heldLocks().isEmpty() && !this.redis.exists(key(a)) && !this.redis.exists(key(b)));
			assertThat(listener.events).as("each name's wait interrupted, and no release")
				.containsExactlyInAnyOrder("acquire " + a + " INTERRUPTED", "acquire " + b + " INTERRUPTED");
			assertThat(listener.abandoned()).as("every name's hold, never the caller's").containsExactlyInAnyOrder(a, b);
		}
	}

	/**
	 * A scheduler that keeps the one-off tasks it is given (a set's retries) and never runs them, as a scheduler shut
	 * down with them queued drops them; periodic tasks (the watchdog) run as usual.
	 */
	static final class KeepingScheduler extends ThreadPoolTaskScheduler {

		final BlockingQueue<Runnable> kept = new LinkedBlockingQueue<>();

		@Override
		public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
			this.kept.add(task);
			// A real future, to cancel, of a task that does nothing and runs long after the test.
			return super.schedule(() -> {
			}, startTime.plus(Duration.ofDays(1)));
		}

	}

}

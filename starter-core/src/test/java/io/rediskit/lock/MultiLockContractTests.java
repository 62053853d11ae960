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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.Names;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

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

	@Test
	void aTimedOutAcquisitionCompletesOnlyOnceWhatItTookIsReleased() throws Exception {
		LockTesting.RecordingListener listener = new LockTesting.RecordingListener();
		try (LockRegistry recorded = LockTesting.observed(new LockRegistry(TopologyScripts.of(this.redis),
				this.redis.connections(), KeyNaming.defaults(), LockSpec.defaults(), List.of(listener),
				Clock.systemUTC()), listener)) {
			MultiLock multi = recorded.getMultiLock(this.redis.unique("first"), this.redis.unique("second"),
					this.redis.unique("third"));
			try (Lease busy = this.other.getLock(multi.names().get(2)).acquire(Duration.ZERO)) {
				// Recorded on the thread that completes the stage, among the listener's events.
				multi.acquireAsync(Duration.ZERO, null)
					.whenComplete((lease, failure) -> listener.events.add("completed"))
					.exceptionally((failure) -> null)
					.toCompletableFuture()
					.get(10, TimeUnit.SECONDS);
			}
			List<String> releases = listener.events.stream().filter((event) -> event.startsWith("release ")).toList();
			assertThat(releases).as("the steps taken before the busy one")
				.hasSize((this.topology == Topology.CLUSTER) ? 2 : 0);
			assertThat(listener.events).as("released, then completed").endsWith("completed");
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
		}
	}

}

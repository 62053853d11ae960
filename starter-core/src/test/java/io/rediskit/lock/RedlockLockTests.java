package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.RedisConnectionFailureException;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Redlock semantics on five independent redis-servers, and what it does when some of them fail. */
class RedlockLockTests {

	@RegisterExtension
	static final RedisServerExtension servers = RedisServerExtension.servers(RedlockTesting.NODES);

	RedlockTesting nodes;

	LockTesting.RecordingListener listener;

	RedlockRegistry registry;

	ExecutorService executor;

	@BeforeEach
	void setUp() {
		this.nodes = new RedlockTesting(servers);
		this.listener = new LockTesting.RecordingListener();
		this.registry = this.nodes.registry(RedlockTesting.spec(), this.listener);
		this.executor = Executors.newCachedThreadPool();
	}

	@AfterEach
	void tearDown() {
		this.executor.shutdownNow();
		this.nodes.close();
	}

	@Test
	void aLeaseIsTakenOnEveryNodeAndReleasedOnEveryNode() {
		RedisLock lock = this.registry.getLock("report");
		try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
			assertThat(lease.isActive()).isTrue();
			assertThat(lease.fencingToken()).isPositive();
			// Held once a majority took it; the others follow.
			assertThat(this.nodes.nodesHolding("report")).isGreaterThanOrEqualTo(3);
			awaitCondition("every node to be taken", Duration.ofSeconds(5), () -> this.nodes.nodesHolding("report") == 5);
			assertThat(this.registry.heldLocks()).singleElement()
				.satisfies((held) -> assertThat(held.owner()).isEqualTo("lease"));
			assertThat(this.registry.nodeCount()).isEqualTo(5);
			assertThat(this.registry.quorum()).isEqualTo(3);
		}
		// Released once a majority confirmed it; the last nodes' confirmations may come a moment later.
		awaitCondition("every node to be free", Duration.ofSeconds(10), () -> this.nodes.nodesHolding("report") == 0);
		assertThat(this.registry.heldLocks()).isEmpty();
		assertThat(this.listener.events).containsExactly("acquire report ACQUIRED", "release report");
	}

	@Test
	void threadHoldsAreReentrantAndExcludeOtherOwners() throws Exception {
		RedisLock lock = this.registry.getLock("reentrant");
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		long token = lock.fencingToken();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		RedisLock other = this.nodes.registry(RedlockTesting.spec()).getLock("reentrant");
		assertThat(this.executor.submit(() -> other.tryLock(Duration.ofMillis(300))).get(10, TimeUnit.SECONDS))
			.isFalse();
		lock.unlock();
		assertThat(this.nodes.nodesHolding("reentrant")).isEqualTo(5);
		lock.unlock();
		// The other owner's last round was decided by refusals; an acquisition of it still in flight may take a
		// node just freed, and its release, queued behind it, undoes it.
		awaitCondition("every node to be free", Duration.ofSeconds(5), () -> this.nodes.nodesHolding("reentrant") == 0);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		try (Lease next = other.acquire(Duration.ofSeconds(5))) {
			assertThat(next.fencingToken()).isGreaterThan(token);
		}
	}

	@Test
	void fencingTokensIncreaseAcrossHoldersEvenWhenOnlyAMajorityIsShared() {
		RedisLock lock = this.registry.getLock("fenced");
		long previous = 0;
		for (int round = 0; round < 5; round++) {
			// The node whose key a rival holds differs each round: each majority shares only some nodes with the last.
			this.nodes.node(round).command("HSET", io.rediskit.support.KeyNaming.defaults().key("lock", "fenced"), "o",
					"rival", "c", "1", "f", "1");
			try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
				// The token is stored on at least a majority before the lease is handed out.
				long stored = 0;
				for (int node = 0; node < RedlockTesting.NODES; node++) {
					Object fence = this.nodes.node(node)
						.command("GET", io.rediskit.support.KeyNaming.defaults().key("lock", "fenced", "fence"));
					if (fence != null && Long.parseLong((String) fence) >= previous) {
						stored++;
					}
				}
				assertThat(stored).isGreaterThanOrEqualTo(3);
			}
			this.nodes.node(round).command("DEL", io.rediskit.support.KeyNaming.defaults().key("lock", "fenced"));
		}
	}

	@Test
	void twoOfFiveNodesDownStillLock() {
		this.nodes.node(0).kill();
		this.nodes.node(3).kill();
		RedisLock lock = this.registry.getLock("two-down");
		try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
			assertThat(this.nodes.owner(1, "two-down")).isNotNull();
			assertThat(this.nodes.owner(2, "two-down")).isNotNull();
			assertThat(this.nodes.owner(4, "two-down")).isNotNull();
			RedisLock rival = this.nodes.registry(RedlockTesting.spec()).getLock("two-down");
			assertThat(rival.tryAcquire(Duration.ZERO, null)).isEmpty();
		}
		// Eventually, not at once: the rival's round ends as soon as a majority is out of reach, and its vote to a
		// node still on the wire can land after the release; a losing round undoes its votes in the background.
		awaitCondition("node 1 free", Duration.ofSeconds(10), () -> this.nodes.owner(1, "two-down") == null);
	}

	@Test
	void theHolderIsTheOneAMajorityStoresAskedFromAnyInstance() {
		RedisLock lock = this.registry.getLock("reports");
		RedisLock fromElsewhere = this.nodes.registry(RedlockTesting.spec()).getLock("reports");
		assertThat(lock.holder()).as("nobody holds it yet").isEmpty();
		Lease lease = lock.acquireRenewedAsync(Duration.ZERO, "a").toCompletableFuture().join();
		try {
			// Each node handed out a token of its own; the fence round made the chosen one the majority's.
			RedisLock.Holder holder = new RedisLock.Holder("a", lease.fencingToken());
			assertThat(lock.holder()).contains(holder);
			assertThat(fromElsewhere.holder()).as("asked of the nodes from either").contains(holder);
			assertThat(lease.certainValidity()).isPositive().isLessThanOrEqualTo(lock.watchdogTimeout());
		}
		finally {
			lease.close();
		}
		assertThat(lease.certainValidity()).as("once released").isZero();
		assertThat(fromElsewhere.holder()).isEmpty();
	}

	@Test
	void threeOfFiveNodesDownFailFastNeverWaitingOutTheWaitTime() {
		this.nodes.node(0).kill();
		this.nodes.node(2).kill();
		this.nodes.node(4).kill();
		RedisLock lock = this.registry.getLock("three-down");
		long started = System.nanoTime();
		assertThatExceptionOfType(RedisConnectionFailureException.class)
			.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(60)))
			.withMessageContaining("of 5 nodes failed or did not answer")
			.withMessageContaining("a majority needs 3 answers");
		// One round: the node timeout (1 s) bounds every node; generous for a loaded machine.
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(this.listener.events).containsExactly("acquire three-down ERROR");
		// What the live nodes took is released again (sent as the attempt fails, not waited for).
		awaitCondition("the live nodes to be free", Duration.ofSeconds(5),
				() -> this.nodes.owner(1, "three-down") == null && this.nodes.owner(3, "three-down") == null);
	}

	@Test
	void threePausedNodesFailTheAttemptWithinTheNodeTimeoutAndTheirLateAcquisitionsAreUndone() {
		RedisLock lock = this.registry.getLock("paused");
		// Connections open before the pause: a first connection would be opened on the calling thread.
		lock.acquire(Duration.ofSeconds(5)).close();
		this.nodes.node(1).pause();
		this.nodes.node(2).pause();
		this.nodes.node(3).pause();
		long started = System.nanoTime();
		assertThatExceptionOfType(RedisConnectionFailureException.class)
			.isThrownBy(() -> lock.acquire(Duration.ofSeconds(60)));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		this.nodes.node(1).resume();
		this.nodes.node(2).resume();
		this.nodes.node(3).resume();
		// The paused nodes run the acquisition when they wake, then the release queued behind it on the same
		// connection: no key is left.
		awaitCondition("the late acquisitions to be released", Duration.ofSeconds(10),
				() -> this.nodes.nodesHolding("paused") == 0);
	}

	@Test
	void anAttemptRefusedByAMajorityUndoesWhatItsSlowerNodesTakeLater() throws Exception {
		RedisLock lock = this.registry.getLock("refused");
		Lease holder = lock.acquire(Duration.ofSeconds(5));
		awaitCondition("every node to be taken", Duration.ofSeconds(5), () -> this.nodes.nodesHolding("refused") == 5);
		// The holder's keys vanish on two nodes (a restart without persistence), which are then slow.
		String key = io.rediskit.support.KeyNaming.defaults().key("lock", "refused");
		this.nodes.node(3).command("DEL", key);
		this.nodes.node(4).command("DEL", key);
		this.nodes.node(3).pause();
		this.nodes.node(4).pause();
		// Another owner: three refusals decide its round at once, while its acquisitions wait in the paused nodes.
		Future<Boolean> contender = Executors.newSingleThreadExecutor().submit(() -> lock.tryLock(Duration.ZERO));
		assertThat(contender.get(10, TimeUnit.SECONDS)).isFalse();
		this.nodes.node(3).resume();
		this.nodes.node(4).resume();
		holder.close();
		// Nothing of the refused attempt may stay behind on the slow nodes until its lease (30 s) runs out.
		awaitCondition("every node to be free", Duration.ofSeconds(10), () -> this.nodes.nodesHolding("refused") == 0);
	}

	@Test
	void aNodePausedDuringAcquireDoesNotDelayAMajority() {
		RedisLock lock = this.registry.getLock("one-paused");
		lock.acquire(Duration.ofSeconds(5)).close();
		this.nodes.node(4).pause();
		long started = System.nanoTime();
		Lease lease = lock.acquire(Duration.ofSeconds(10));
		// Decided by the first majority of replies: the paused node is not waited for.
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(RedlockTesting.NODE_TIMEOUT);
		awaitCondition("the other nodes to be taken", Duration.ofSeconds(5),
				() -> this.nodes.nodesHolding("one-paused", 0, 1, 2, 3) == 4);
		this.nodes.node(4).resume();
		lease.close();
		awaitCondition("every node to be free", Duration.ofSeconds(10),
				() -> this.nodes.nodesHolding("one-paused") == 0);
	}

	@Test
	void renewalKeepsTheLockWhileAMajorityHoldsIt() {
		RedisLock lock = this.registry.getLock("renewed");
		lock.lock();
		awaitCondition("every node to be taken", Duration.ofSeconds(5), () -> this.nodes.nodesHolding("renewed") == 5);
		this.nodes.node(0).command("DEL", io.rediskit.support.KeyNaming.defaults().key("lock", "renewed"));
		this.nodes.node(1).kill();
		this.registry.shell().renewNow();
		awaitCondition("a renewal", Duration.ofSeconds(10), () -> this.listener.count("renewal") > 0);
		assertThat(this.listener.events).contains("renewal renewed RENEWED").doesNotContain("lost renewed");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
	}

	@Test
	void renewalThatFindsNoMajorityReportsTheLeaseLost() {
		RedisLock lock = this.registry.getLock("lost");
		Lease lease = lock.acquire(Duration.ofSeconds(5));
		awaitCondition("every node to be taken", Duration.ofSeconds(5), () -> this.nodes.nodesHolding("lost") == 5);
		for (int node = 0; node < 3; node++) {
			this.nodes.node(node).command("DEL", io.rediskit.support.KeyNaming.defaults().key("lock", "lost"));
		}
		this.registry.shell().renewNow();
		awaitCondition("the loss to be reported", Duration.ofSeconds(10), () -> this.listener.count("lost") == 1);
		assertThat(this.listener.events).contains("renewal lost LOST", "lost lost " + lease.fencingToken());
		assertThat(lease.isActive()).isFalse();
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		assertThat(this.registry.heldLocks()).isEmpty();
	}

	@Test
	void renewalThatCannotReachAMajorityLosesTheLeaseWhenItsValidityEnds() {
		RedlockRegistry shortLeases = this.nodes.registry(RedlockTesting.spec().withWatchdogTimeout(Duration.ofSeconds(3)),
				this.listener);
		Lease lease = shortLeases.getLock("unreachable").acquire(Duration.ofSeconds(5));
		this.nodes.node(0).kill();
		this.nodes.node(1).kill();
		this.nodes.node(2).kill();
		// The watchdog renews every second and fails; the validity (under 3 s) ends the hold.
		awaitCondition("the loss to be reported", Duration.ofSeconds(20), () -> this.listener.count("lost") == 1);
		assertThat(this.listener.events).contains("renewal unreachable ERROR");
		assertThat(lease.isActive()).isFalse();
	}

	@Test
	void anExplicitLeaseIsNotRenewedAndEndsOnItsOwn() {
		RedisLock lock = this.registry.getLock("explicit");
		Lease lease = lock.acquire(Duration.ofSeconds(5), Duration.ofSeconds(3));
		RedisLock rival = this.nodes.registry(RedlockTesting.spec()).getLock("explicit");
		try (Lease next = rival.acquire(Duration.ofSeconds(20))) {
			assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		}
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		assertThatIllegalArgumentException().isThrownBy(() -> lock.acquire(Duration.ZERO, Duration.ofMillis(2999)))
			.withMessageContaining("three node timeouts");
	}

	/**
	 * The known Redlock hazard: a node that restarts without persistence forgets the lock, and with the minority
	 * that never had it a second client gets a majority while the first still holds its lease. Fencing still
	 * rejects the first holder's late writes, and its watchdog reports the lease lost. Keeping a restarted node
	 * down for longer than the longest lease (delayed restart) or persisting every write avoids the overlap.
	 */
	@Test
	void aNodeRestartedWithoutPersistenceLetsASecondClientInAndFencingCatchesIt() {
		this.nodes.node(3).kill();
		this.nodes.node(4).kill();
		RedisLock first = this.registry.getLock("hazard");
		Lease firstLease = first.acquire(Duration.ofSeconds(10));
		awaitCondition("the live nodes to be taken", Duration.ofSeconds(5),
				() -> this.nodes.nodesHolding("hazard", 0, 1, 2) == 3);
		this.nodes.node(3).restart();
		this.nodes.node(4).restart();
		// Node 2 crashes and comes back at once, empty.
		this.nodes.node(2).restart();
		RedisLock second = this.nodes.registry(RedlockTesting.spec()).getLock("hazard");
		Lease secondLease = second.acquire(Duration.ofSeconds(10));
		// Both believe they hold the lock: mutual exclusion is gone until the first lease ends.
		assertThat(firstLease.isActive()).isTrue();
		assertThat(secondLease.isActive()).isTrue();
		assertThat(secondLease.fencingToken()).isGreaterThan(firstLease.fencingToken());
		String ledger = "ledger-hazard";
		assertThat(LockTesting.fencedWrite(this.nodes.connections().get(0), ledger, secondLease.fencingToken(), "second"))
			.isTrue();
		assertThat(LockTesting.fencedWrite(this.nodes.connections().get(0), ledger, firstLease.fencingToken(), "first"))
			.isFalse();
		// The first holder's watchdog finds the other owner on three nodes: no majority is left.
		this.registry.shell().renewNow();
		awaitCondition("the loss to be reported", Duration.ofSeconds(10), () -> this.listener.count("lost") == 1);
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(firstLease::close);
		secondLease.close();
		// The first holder's release freed the two nodes it still held; the second's the other three.
		awaitCondition("every node to be free", Duration.ofSeconds(10), () -> this.nodes.nodesHolding("hazard") == 0);
	}

	@Test
	void asyncAcquireWaitsWithoutAThreadAndReleasesAsync() throws Exception {
		RedisLock lock = this.registry.getLock("async");
		Lease first = lock.acquireAsync(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
		CompletableFuture<Lease> second = lock.acquireAsync(Duration.ofSeconds(10)).toCompletableFuture();
		assertThat(second).isNotDone();
		first.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		Lease next = second.get(10, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
		CompletableFuture<Lease> timedOut = lock.acquireAsync(Duration.ofMillis(200)).toCompletableFuture();
		assertThat(timedOut).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(LockNotAcquiredException.class);
		next.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
		// The release completes once a majority confirmed it; the last node's confirmation may come a moment later.
		awaitCondition("every node to be free", Duration.ofSeconds(10), () -> this.nodes.nodesHolding("async") == 0);
		assertThat(this.listener.events).contains("acquire async TIMEOUT");
	}

	@Test
	void asyncAcquireWithThreeNodesDownFailsWithinTheNodeTimeout() {
		this.nodes.node(0).kill();
		this.nodes.node(1).kill();
		this.nodes.node(2).kill();
		long started = System.nanoTime();
		CompletableFuture<Lease> attempt = this.registry.getLock("async-down")
			.acquireAsync(Duration.ofSeconds(60))
			.toCompletableFuture();
		assertThat(attempt).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(RedisConnectionFailureException.class);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void aCancelledAsyncAcquireReleasesWhatItGot() throws Exception {
		RedisLock lock = this.registry.getLock("cancelled");
		Lease holder = lock.acquire(Duration.ofSeconds(5));
		CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
		waiting.cancel(false);
		holder.close();
		// Any attempt still in flight releases what it takes: the nodes end up free, and nothing is held.
		awaitCondition("the nodes to be free", Duration.ofSeconds(10),
				() -> this.nodes.nodesHolding("cancelled") == 0 && this.registry.heldLocks().isEmpty());
		try (Lease again = lock.acquire(Duration.ZERO)) {
			assertThat(again.isActive()).isTrue();
		}
	}

	@Test
	void aRoundEndingWhileTheCancellationCompletesTheStageReportsTheWaitOnce() throws Exception {
		// The waiter's node timeout is long, so that its round stays in flight until the paused nodes are resumed.
		LockTesting.RecordingListener waiting = new LockTesting.RecordingListener();
		RedlockRegistry waiterRegistry = this.nodes
			.registry(RedlockTesting.spec().withNodeTimeout(Duration.ofSeconds(10)), waiting);
		// Connections open before the pause: opening one to a paused node would hang.
		waiterRegistry.getLock("warm-up").acquire(Duration.ofSeconds(5)).close();
		Lease holder = this.registry.getLock("cancel-once").acquire(Duration.ofSeconds(5));
		awaitCondition("every node to be taken", Duration.ofSeconds(5),
				() -> this.nodes.nodesHolding("cancel-once") == 5);
		this.nodes.node(2).pause();
		this.nodes.node(3).pause();
		this.nodes.node(4).pause();
		CompletableFuture<Lease> wait = waiterRegistry.getLock("cancel-once")
			.acquireAsync(Duration.ofSeconds(30))
			.toCompletableFuture();
		// A callback of the caller's runs once cancel(false) has completed the stage and before the wait hears of
		// it (a stage runs its latest callback first), as a slow callback or a preempted thread would: the round in
		// flight is answered meanwhile and ends the wait it finds cancelled.
		AtomicBoolean roundEndedMeanwhile = new AtomicBoolean();
		wait.whenComplete((lease, failure) -> {
			this.nodes.node(2).resume();
			this.nodes.node(3).resume();
			this.nodes.node(4).resume();
			awaitCondition("the round in flight to end the wait", Duration.ofSeconds(15),
					() -> waiting.count("acquire cancel-once") > 0);
			roundEndedMeanwhile.set(true);
		});
		assertThat(wait.cancel(false)).isTrue();
		assertThat(roundEndedMeanwhile).as("the round ended while the stage was being cancelled").isTrue();
		// The caller's thread ended the wait as well once its callback returned: still one outcome.
		assertThat(waiting.events).filteredOn((event) -> event.startsWith("acquire cancel-once"))
			.containsExactly("acquire cancel-once INTERRUPTED");
		holder.close();
		awaitCondition("every node to be free", Duration.ofSeconds(10),
				() -> this.nodes.nodesHolding("cancel-once") == 0 && waiterRegistry.heldLocks().isEmpty());
	}

	@Test
	void aHoldAbandonedByACancelledWaitIsNotReportedLostByALateRenewal() {
		// Started, with every node's connection open.
		this.registry.getLock("warm-up").acquire(Duration.ofSeconds(5)).close();
		LockHolds holds = this.registry.shell().parts().holds();
		// A wait of its own, so that its monitor can hold up the round's completion: the round has recorded the
		// hold, where a watchdog round can pick it, and has not yet found the wait cancelled. The round's reply is
		// taken on the driver's thread, unless it came before start() attached its callback (this thread preempted
		// in between, on a loaded machine): then this thread, owning the monitor, completes the wait itself, and the
		// try is not the interleaving under test; the next one, on a name of its own, is.
		LockHold hold = null;
		String name = null;
		for (int attempt = 0; hold == null && attempt < 20; attempt++) {
			awaitCondition("no hold left from before", Duration.ofSeconds(10), () -> holds.all().isEmpty());
			name = "abandoned-" + attempt;
			RedlockAcquisition acquisition = new RedlockAcquisition(this.registry.getLock(name),
					this.registry.shell().engine(), "abandoning", null, Duration.ofSeconds(5),
					TimeUnit.SECONDS.toNanos(5));
			CompletableFuture<Lease> wait;
			synchronized (acquisition) {
				wait = acquisition.start().toCompletableFuture();
				awaitCondition("the round to record its hold", Duration.ofSeconds(10), () -> !holds.all().isEmpty());
				LockHold recorded = holds.all().iterator().next();
				if (wait.cancel(false)) {
					hold = recorded;
				}
			}
			if (hold == null) {
				wait.join().close();
			}
		}
		assertThat(hold).as("a round's completion held up on the wait's monitor, in 20 tries").isNotNull();
		String abandoned = name;
		// The round's completion finds the wait cancelled: the hold is abandoned, freed on every node.
		awaitCondition("the abandoned hold to be freed on every node", Duration.ofSeconds(10),
				() -> holds.all().isEmpty() && this.nodes.nodesHolding(abandoned) == 0);
		// A watchdog round that picked the hold before it was forgotten, and was held up (a preempted thread), sends
		// its renewal only now: every node answers that the owner holds nothing.
		LockHold late = hold;
		late.stallRenewals();
		this.registry.shell().renewNow(late);
		awaitCondition("the late renewal to be answered", Duration.ofSeconds(10), () -> !late.isRenewing());
		assertThat(late.isLost()).as("lost").isFalse();
		assertThat(this.listener.events).filteredOn((event) -> event.contains(abandoned))
			.containsExactly("acquire " + abandoned + " INTERRUPTED");
	}

	@Test
	void aStoppedRegistryEndsAsyncWaitsAndAClosedOneRefusesCalls() {
		RedisLock lock = this.registry.getLock("stopped");
		Lease holder = lock.acquire(Duration.ofSeconds(5));
		CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(30)).toCompletableFuture();
		this.registry.stop();
		assertThat(waiting).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(IllegalStateException.class);
		holder.close();
		this.registry.close();
		assertThat(lock.acquireAsync(Duration.ZERO)).failsWithin(Duration.ofSeconds(1));
		assertThat(List.of(this.registry.isRunning())).containsExactly(false);
	}

}

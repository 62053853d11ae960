package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisAvailability;
import io.rediskit.support.RedisUnavailableException;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.FaultProxy;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A holder whose link to Redis goes into a black hole ({@link FaultProxy}) while the server keeps serving everyone
 * else: unlike a paused server ({@link LockOutageTests}), its lease runs out on a live server where a second
 * client takes the lock, and when the link heals, the renewals the black hole held reach Redis late.
 */
class LockNetworkFaultTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);

	private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(900);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	RedisServerProcess server;

	FaultProxy proxy;

	LettuceConnectionFactory cutOffConnections;

	LettuceConnectionFactory directConnections;

	RedisAvailability availability;

	final LockTesting.RecordingListener listener = new LockTesting.RecordingListener();

	LockRegistry cutOff;

	LockRegistry direct;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.proxy = FaultProxy.start(this.server);
		this.cutOffConnections = this.proxy.newConnectionFactory(COMMAND_TIMEOUT);
		// As the starter wires it: every script through the availability gate of the holder's connection factory.
		this.availability = RedisAvailability.of(this.cutOffConnections, Duration.ofMillis(200), null, List.of());
		this.cutOff = LockTesting.observed(new LockRegistry(
				this.availability.guard(ScriptExecutor.of(this.cutOffConnections)), this.cutOffConnections,
				KeyNaming.defaults(), LockSpec.defaults().withWatchdogTimeout(WATCHDOG_TIMEOUT), List.of(this.listener),
				Clock.systemUTC()), this.listener);
		this.directConnections = TestConnections.lettuce(this.server, Duration.ofSeconds(2));
		this.direct = new LockRegistry(this.directConnections);
	}

	@AfterEach
	void tearDown() {
		this.proxy.pass();
		this.cutOff.close();
		this.direct.close();
		this.availability.close();
		this.cutOffConnections.destroy();
		this.directConnections.destroy();
		this.proxy.close();
	}

	@Test
	void aHolderCutOffPastItsLeaseLosesTheLockToAnotherClientAndHealingDoesNotReviveIt() throws Exception {
		RedisLock lock = this.cutOff.getLock("cut");
		Lease lease = lock.acquire(Duration.ZERO);
		awaitCondition("a renewal before the cut", Duration.ofSeconds(5),
				() -> this.listener.count("renewal cut RENEWED") >= 1);
		this.proxy.blackhole();
		long cutAt = System.nanoTime();
		// A client that reaches Redis directly waits for the lease to end on the server, which serves it all along.
		Lease taken = this.direct.getLock("cut").acquire(Duration.ofSeconds(10), Duration.ofSeconds(30));
		Duration takenAfter = Duration.ofNanos(System.nanoTime() - cutAt);
		assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
		awaitCondition("the holder to report its lease lost", Duration.ofSeconds(5),
				() -> this.listener.count("lost cut") == 1);
		Duration lostAfter = Duration.ofNanos(System.nanoTime() - cutAt);
		System.out.printf("network fault figures: lock taken by the other client %d ms and loss reported %d ms "
				+ "after the cut (watchdog %d ms)%n", takenAfter.toMillis(), lostAfter.toMillis(),
				WATCHDOG_TIMEOUT.toMillis());
		assertThat(this.listener.events).contains("lost cut " + lease.fencingToken(), "renewal cut ERROR");
		assertThat(lease.isActive()).isFalse();

		this.proxy.pass();
		// Through the healed link the holder takes another lock: the gate must have seen a PING answered, and the
		// renewals the black hole held, sent on the same connection before it, have run on the server by then.
		RedisLock after = this.cutOff.getLock("after");
		Lease afterLease = awaitAcquired(after);
		assertThat(this.proxy.openConnections()).as("the held link carried on, no reconnection").isEqualTo(1);
		int renewedBefore = (int) this.listener.count("renewal after RENEWED");
		awaitCondition("renewals of the lock taken after healing", Duration.ofSeconds(10),
				() -> this.listener.count("renewal after RENEWED") >= renewedBefore + 3);
		// Three renewals a third of the timeout apart: the key outlived its first lease.
		assertThat((Long) this.server.command("PTTL", "rk:lock:{after}")).isPositive();

		// The late renewals changed nothing: the key is the other client's, with its token and its lease.
		assertThat(this.server.command("HGET", "rk:lock:{cut}", "f")).isEqualTo(Long.toString(taken.fencingToken()));
		assertThat((Long) this.server.command("PTTL", "rk:lock:{cut}")).isGreaterThan(WATCHDOG_TIMEOUT.toMillis() * 5);
		assertThat(taken.isActive()).isTrue();
		// Nothing of the lost hold was renewed after the loss, nor reported lost twice.
		List<String> afterLoss = eventsAfter("lost cut");
		assertThat(afterLoss).noneMatch((event) -> event.startsWith("renewal cut"))
			.noneMatch((event) -> event.startsWith("lost cut"));
		assertThat(this.cutOff.heldLocks()).extracting(HeldLock::name).containsExactly("after");
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		taken.close();
		afterLease.close();
		assertThat(this.server.command("EXISTS", "rk:lock:{cut}")).isEqualTo(0L);
		assertThat(this.server.command("EXISTS", "rk:lock:{after}")).isEqualTo(0L);
	}

	@Test
	void anAcquisitionIntoABlackHoleFailsAtTheCommandTimeoutTheNextAtOnceAndItsUndoRunsAfterHealing()
			throws Exception {
		RedisLock lock = this.cutOff.getLock("hole");
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		this.proxy.blackhole();
		long started = System.nanoTime();
		// A lease of a minute: only the undo, not the lease, can end what the attempt takes once the link heals.
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(5), Duration.ofMinutes(1)));
		Duration first = Duration.ofNanos(System.nanoTime() - started);
		started = System.nanoTime();
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(5), Duration.ofMinutes(1)));
		Duration next = Duration.ofNanos(System.nanoTime() - started);
		System.out.printf("network fault figures: tryLock into a black hole failed after %d ms, the next after %d ms "
				+ "(command timeout %d ms)%n", first.toMillis(), next.toMillis(), COMMAND_TIMEOUT.toMillis());
		// The wait time (5 s) is not waited out; the undo is sent but not awaited.
		assertThat(first).isLessThan(COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(next).isLessThan(Duration.ofMillis(250));
		assertThat(this.listener.events).contains("acquire hole ERROR");
		this.proxy.pass();
		// The attempt the black hole held runs on the server, and the undo behind it removes it.
		awaitCondition("the held acquisition to be undone", Duration.ofSeconds(5),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{hole}")));
		Lease lease = awaitAcquired(lock);
		assertThat(this.proxy.acceptedConnections()).as("the held link carried on, no reconnection").isEqualTo(1);
		lease.close();
	}

	private Lease awaitAcquired(RedisLock lock) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (true) {
			try {
				return lock.acquire(Duration.ZERO);
			}
			catch (RedisUnavailableException ex) {
				// Refused at once until the gate's PING is answered through the healed link.
				if (System.nanoTime() - deadline > 0) {
					throw ex;
				}
				Thread.sleep(10);
			}
		}
	}

	private List<String> eventsAfter(String prefix) {
		List<String> events = new ArrayList<>(this.listener.events);
		for (int i = 0; i < events.size(); i++) {
			if (events.get(i).startsWith(prefix)) {
				return events.subList(i + 1, events.size());
			}
		}
		throw new AssertionError("No event " + prefix + " in " + events);
	}

}

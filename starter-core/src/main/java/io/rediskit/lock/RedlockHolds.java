package io.rediskit.lock;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one {@link RedlockRegistry}'s owners, and their ids. Memory is bounded by the locks held at a
 * time.
 */
final class RedlockHolds {

	private static final Log logger = LogFactory.getLog(RedlockHolds.class);

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final ConcurrentMap<Id, RedlockHold> holds = new ConcurrentHashMap<>();

	private final Listeners<LockListener> listeners;

	private final Clock clock;

	RedlockHolds(Listeners<LockListener> listeners, Clock clock) {
		this.listeners = listeners;
		this.clock = clock;
	}

	/** @return the owner the calling thread acquires as */
	String threadOwner() {
		return this.instanceId + ":t" + Thread.currentThread().getId();
	}

	/** @return a new owner for one lease */
	String leaseOwner() {
		return this.instanceId + ":l" + this.sequence.incrementAndGet();
	}

	String nextRequestId() {
		return Long.toString(this.sequence.incrementAndGet(), 36);
	}

	@Nullable RedlockHold get(RedlockLock lock, String owner) {
		return this.holds.get(new Id(lock.getName(), owner));
	}

	/** Records a first acquisition confirmed by a majority. */
	RedlockHold acquired(RedlockLock lock, String owner, long fencingToken, long leaseMillis, boolean watchdog,
			long startedNanos, long validUntilNanos) {
		RedlockHold hold = new RedlockHold(lock, owner, fencingToken, leaseMillis, watchdog, Instant.now(this.clock),
				startedNanos, validUntilNanos);
		this.holds.put(new Id(lock.getName(), owner), hold);
		return hold;
	}

	void forget(RedlockHold hold) {
		this.holds.remove(new Id(hold.lock.getName(), hold.owner), hold);
	}

	/** Records a lost hold once: never renewed again, reported to the listeners, and unlock will say so. */
	void markLost(RedlockHold hold) {
		boolean first;
		synchronized (hold) {
			first = !hold.lost;
			hold.lost = true;
		}
		if (first) {
			logger.warn("Redlock '" + hold.lock.getName() + "' (fencing token " + hold.fencingToken
					+ ") was lost before its owner released it: no majority of nodes holds it for its owner");
			this.listeners.notify((listener) -> listener.onLeaseLost(hold.lock.getGroup(), hold.fencingToken));
		}
	}

	/** @return the holds now, for the watchdog */
	Collection<RedlockHold> all() {
		return this.holds.values();
	}

	/** @return the holds that are not lost, oldest first */
	List<HeldLock> describe() {
		long now = System.nanoTime();
		List<HeldLock> held = new ArrayList<>();
		for (RedlockHold hold : this.holds.values()) {
			if (!hold.lost) {
				held.add(hold.describe(now));
			}
		}
		held.sort(Comparator.comparing(HeldLock::heldSince));
		return held;
	}

	private record Id(String name, String owner) {
	}

}

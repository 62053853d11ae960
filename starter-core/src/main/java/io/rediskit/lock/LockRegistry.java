package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Hands out {@link RedisLock}s and runs what they share: the Lua scripts, one watchdog thread that renews
 * the leases of all its locks, one pub/sub subscriber that wakes waiters, and the record of the holds its
 * owners have now.
 * <p>
 * Create one per application and share it (the Spring Boot starter registers one as a bean); locks are cheap,
 * so {@code getLock} returns a new handle each time and keeps no cache: client memory is bounded by the locks
 * held and waited for at a time, however many names are used. Each factory has its own random instance id;
 * owners are that id plus the thread id ({@link java.util.concurrent.locks.Lock} methods) or plus a lease
 * number ({@link RedisLock.Lease}). Close the factory on shutdown to stop its threads.
 * <p>
 * Keys: {@code <prefix>lock:{<name>}} holds the owner, hold count and fencing token and carries the lease as
 * its TTL; {@code <prefix>lock:{<name>}:fence} keeps the last fencing token for a day after the last
 * acquisition. Both share one hash slot.
 */
public class LockRegistry implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockRegistry.class);

	static final LuaScript ACQUIRE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/acquire.lua");

	static final LuaScript RELEASE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/release.lua");

	static final LuaScript RENEW = LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/renew.lua");

	/** How long the last fencing token of a name is kept after its last acquisition. */
	static final Duration FENCE_TTL = Duration.ofDays(1);

	private static final byte[] FENCE_TTL_MILLIS = ascii(FENCE_TTL.toMillis());

	private final RedisConnectionFactory connectionFactory;

	private final ScriptExecutor scripts;

	private final KeyNaming keyNaming;

	private final LockSpec spec;

	private final LockListener listener;

	private final Clock clock;

	private final String instanceId = UUID.randomUUID().toString();

	private final AtomicLong sequence = new AtomicLong();

	private final ConcurrentMap<LockHold.Id, LockHold> holds = new ConcurrentHashMap<>();

	private final LockWatchdog watchdog;

	private final ReleaseSignals signals;

	/**
	 * Creates a factory with default key naming and settings.
	 * @param connectionFactory the application's Redis connections
	 */
	public LockRegistry(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, KeyNaming.defaults(), LockSpec.defaults(), LockListener.NONE, Clock.systemUTC());
	}

	/**
	 * Creates a factory.
	 * @param connectionFactory the application's Redis connections
	 * @param keyNaming how keys are named
	 * @param settings lease, watchdog and wait defaults
	 * @param listener told about acquisitions, releases, renewals and lost leases
	 * @param clock the clock {@link HeldLock#heldSince()} is read from
	 */
	public LockRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming, LockSpec settings,
			LockListener listener, Clock clock) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
		this.scripts = ScriptExecutor.of(this.connectionFactory);
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming");
		this.spec = Objects.requireNonNull(settings, "settings");
		Objects.requireNonNull(listener, "listener");
		this.listener = (listener == LockListener.NONE) ? listener : new SafeLockListener(listener);
		this.clock = Objects.requireNonNull(clock, "clock");
		this.signals = new ReleaseSignals(connectionFactory, keyNaming.prefix() + "lock:keep-alive");
		this.watchdog = new LockWatchdog(this, this.holds.values(), settings.watchdogTimeout());
	}

	/**
	 * A lock whose metrics are tagged with its own name: use it for a fixed set of names.
	 * @param name the lock name
	 * @return a handle on that lock
	 */
	public RedisLock getLock(String name) {
		requireName(name);
		return new RedisLock(this, name, name);
	}

	/**
	 * One lock of a group, such as the lock of one order: the lock is {@code group:key}, its metrics are
	 * tagged with {@code group} only.
	 * @param group the group name, a small fixed set
	 * @param key what selects the lock within the group, such as an order id
	 * @return a handle on that lock
	 */
	public RedisLock getLock(String group, String key) {
		requireName(group);
		Objects.requireNonNull(key, "key");
		return new RedisLock(this, group + ":" + key, group);
	}

	/** @return the locks this factory's owners hold now, oldest first; lost holds are left out */
	public List<HeldLock> heldLocks() {
		long now = System.nanoTime();
		List<HeldLock> held = new ArrayList<>();
		for (LockHold hold : this.holds.values()) {
			if (!hold.lost) {
				held.add(hold.describe(now));
			}
		}
		held.sort(Comparator.comparing(HeldLock::heldSince));
		return held;
	}

	/** @return the spec this registry runs with */
	public LockSpec spec() {
		return this.spec;
	}

	/** @return the key naming this factory uses */
	public KeyNaming getKeyNaming() {
		return this.keyNaming;
	}

	/** Stops the watchdog and the subscriber. Held locks are not released: their leases run out. */
	@Override
	public void close() {
		this.watchdog.close();
		try {
			this.signals.close();
		}
		catch (Exception ex) {
			logger.debug("Closing the lock subscriber failed", ex);
		}
	}

	// The methods below are the shared machinery of RedisLock.

	LockListener listener() {
		return this.listener;
	}

	Clock clock() {
		return this.clock;
	}

	ReleaseSignals signals() {
		return this.signals;
	}

	String key(String name) {
		return this.keyNaming.key("lock", name);
	}

	String threadOwner() {
		return this.instanceId + ":t" + Thread.currentThread().getId();
	}

	String leaseOwner() {
		return this.instanceId + ":l" + this.sequence.incrementAndGet();
	}

	String nextRequestId() {
		return Long.toString(this.sequence.incrementAndGet(), 36);
	}

	@Nullable LockHold hold(String key, String owner) {
		return this.holds.get(new LockHold.Id(key, owner));
	}

	void register(String key, LockHold hold) {
		this.holds.put(new LockHold.Id(key, hold.owner), hold);
	}

	void forget(String key, LockHold hold) {
		this.holds.remove(new LockHold.Id(key, hold.owner), hold);
	}

	/**
	 * Runs the acquire script.
	 * @param reentry whether the owner already holds the lock
	 * @return {@code [1, token, count]} or {@code [0, pttl]}
	 */
	List<Object> acquire(String key, String owner, long leaseMillis, String requestId, boolean reentry) {
		List<Object> reply = this.scripts.execute(ACQUIRE, ReturnType.MULTI, 2, bytes(key),
				bytes(key + ":fence"), bytes(owner), ascii(leaseMillis), bytes(requestId), FENCE_TTL_MILLIS,
				reentry ? ONE : ZERO);
		if (reply == null) {
			throw new IllegalStateException("Redis returned no reply to the lock acquire script");
		}
		return reply;
	}

	/**
	 * Runs the release script.
	 * @param undo whether to undo only the acquisition {@code requestId}
	 * @param lastHold whether this is the owner's last hold as counted locally: the lock goes whatever the
	 * stored count says
	 * @param nextOwner owner to hand the lock to if this was the last hold, or {@code null}
	 * @param nextLeaseMillis the next owner's lease
	 * @return {@code [holds left, fencing token of the next owner or 0]}; holds left is {@code -1} when not
	 * the owner, {@code -2} when there was nothing to undo
	 */
	long[] release(String key, String owner, long leaseMillis, String requestId, boolean undo, boolean lastHold,
			@Nullable String nextOwner, long nextLeaseMillis) {
		// An interrupted thread must still be able to release what it holds.
		List<Object> reply = uninterruptibly(() -> this.scripts.execute(RELEASE, ReturnType.MULTI, 2,
				bytes(key), bytes(key + ":fence"), bytes(owner), ascii(leaseMillis), bytes(requestId),
				bytes(key + ":released"), undo ? ONE : ZERO, (nextOwner != null) ? bytes(nextOwner) : EMPTY,
				ascii(nextLeaseMillis), bytes(nextRequestId()), FENCE_TTL_MILLIS, lastHold ? ONE : ZERO));
		if (reply == null) {
			throw new IllegalStateException("Redis returned no reply to the lock release script");
		}
		return new long[] { (Long) reply.get(0), (Long) reply.get(1) };
	}

	boolean renew(LockHold hold) {
		String key = hold.lock.key();
		Long reply = this.scripts.execute(RENEW, ReturnType.INTEGER, 1, bytes(key), bytes(hold.owner),
				ascii(hold.leaseMillis));
		return reply != null && reply == 1L;
	}

	boolean isLocked(String key) {
		return uninterruptibly(() -> {
			try (var connection = this.connectionFactory.getConnection()) {
				return Boolean.TRUE.equals(connection.keyCommands().exists(bytes(key)));
			}
		});
	}

	int holdCount(String key, String owner) {
		return uninterruptibly(() -> readHoldCount(key, owner));
	}

	private int readHoldCount(String key, String owner) {
		try (var connection = this.connectionFactory.getConnection()) {
			List<byte[]> fields = connection.hashCommands().hMGet(bytes(key), bytes("o"), bytes("c"));
			if (fields == null || fields.get(0) == null || !owner.equals(new String(fields.get(0), StandardCharsets.UTF_8))) {
				return 0;
			}
			return Integer.parseInt(new String(fields.get(1), StandardCharsets.US_ASCII));
		}
	}

	/** Records a lost hold once: never renewed again, reported to the listener, and unlock will say so. */
	void markLost(LockHold hold) {
		boolean first;
		synchronized (hold) {
			first = !hold.lost;
			hold.lost = true;
		}
		if (first) {
			logger.warn("Lock '" + hold.lock.getName() + "' (fencing token " + hold.fencingToken
					+ ") was lost before its owner released it");
			this.listener.onLeaseLost(hold.lock.getGroup(), hold.fencingToken);
		}
	}

	/**
	 * Runs a short Redis call that must not fail because the calling thread was interrupted earlier (the
	 * driver fails any wait of an interrupted thread at once); the interrupt flag is restored afterwards.
	 */
	static <T> T uninterruptibly(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static final byte[] ONE = { '1' };

	private static final byte[] ZERO = { '0' };

	private static final byte[] EMPTY = {};

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static void requireName(String name) {
		Objects.requireNonNull(name, "name");
		if (name.isEmpty()) {
			throw new IllegalArgumentException("Lock name must not be empty");
		}
	}

}

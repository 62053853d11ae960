package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ReplicaWait;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of the lock: one method per operation, each running its own script through the
 * {@link ScriptExecutor} with its arguments in order and its reply read, plus the two plain reads behind
 * {@link RedisLock#isLocked()} and {@link RedisLock#holdCount()}. The keys of one call are those of one
 * {@link Keys}, all in the lock name's hash slot.
 * <p>
 * Fencing rule, the same in {@code acquire.lua} and {@code hand_off.lua}: a new holder's token is the server's
 * clock in microseconds, or one more than the last token handed out for the name if that is not lower.
 */
final class LockScripts {

	static final LuaScript ACQUIRE = script("acquire");

	static final LuaScript REENTER = script("reenter");

	static final LuaScript RELEASE = script("release");

	static final LuaScript RELEASE_LAST = script("release_last");

	static final LuaScript HAND_OFF = script("hand_off");

	static final LuaScript UNDO = script("undo");

	static final LuaScript RENEW = script("renew");

	static final LuaScript RAISE_FENCE = script("raise_fence");

	static final LuaScript SCHEDULED_ACQUIRE = script("scheduled_acquire");

	static final LuaScript SCHEDULED_RELEASE = script("scheduled_release");

	static final LuaScript SCHEDULED_STATE = script("scheduled_state");

	static final LuaScript MULTILOCK_ACQUIRE = script("multilock_acquire");

	/** How long the last fencing token of a name is kept after its last acquisition. */
	static final Duration FENCE_TTL = Duration.ofDays(1);

	static final byte[] FENCE_TTL_MILLIS = number(FENCE_TTL.toMillis());

	private final ScriptExecutor executor;

	private final RedisConnectionFactory connectionFactory;

	private final CommandExecutor commands;

	private final ReplicaWait replicaWait;

	private final Listeners<LockListener> listeners;

	LockScripts(ScriptExecutor executor, RedisConnectionFactory connectionFactory) {
		this(executor, connectionFactory, ReplicaWait.NONE, Listeners.of("lock", List.of()));
	}

	/**
	 * @param replicaWait whether acquisitions and renewals wait for replicas
	 * @param listeners told of a replica shortfall that let a write stand
	 */
	LockScripts(ScriptExecutor executor, RedisConnectionFactory connectionFactory, ReplicaWait replicaWait,
			Listeners<LockListener> listeners) {
		this.executor = executor;
		this.connectionFactory = connectionFactory;
		this.commands = CommandExecutor.of(connectionFactory);
		this.replicaWait = replicaWait;
		this.listeners = listeners;
	}

	/**
	 * A first acquisition: takes a free lock, or adopts as one hold a lock this owner already has (handed over
	 * by a release, or taken by an attempt whose reply was lost).
	 * @throws LockNotReplicatedException if too few replicas acknowledged and the spec says to fail; the caller
	 * undoes the acquisition, as after any failed attempt
	 */
	Attempt acquire(Keys keys, String owner, long leaseMillis, String requestId) {
		if (this.replicaWait.enabled()) {
			return await(acquireAsync(keys, owner, leaseMillis, requestId));
		}
		return Attempt.of(this.executor.execute(ACQUIRE, ReturnType.MULTI, 2,
				acquireArguments(keys, owner, leaseMillis, requestId)));
	}

	/** {@link #acquire} without blocking; the stage completes on the driver's thread. */
	CompletionStage<Attempt> acquireAsync(Keys keys, String owner, long leaseMillis, String requestId) {
		byte[][] arguments = acquireArguments(keys, owner, leaseMillis, requestId);
		if (!this.replicaWait.enabled()) {
			return this.executor.<List<Object>>executeAsync(ACQUIRE, ReturnType.MULTI, 2, arguments)
				.thenApply(Attempt::of);
		}
		return this.executor.<List<Object>>executeAndWaitAsync(ACQUIRE, ReturnType.MULTI, this.replicaWait, 2, arguments)
			.thenApply((acknowledged) -> {
				Attempt attempt = Attempt.of(acknowledged.reply());
				if (attempt.acquired() && acknowledged.acknowledged() < this.replicaWait.replicas()) {
					if (this.replicaWait.onShortfall() == ReplicaWait.Shortfall.FAIL) {
						throw new LockNotReplicatedException(keys.name, acknowledged.acknowledged(),
								this.replicaWait.replicas());
					}
					reportShortfall(keys, acknowledged.acknowledged());
				}
				return attempt;
			});
	}

	private void reportShortfall(Keys keys, long acknowledged) {
		this.listeners.notify((listener) -> listener.onReplicaShortfall(keys.group, acknowledged,
				this.replicaWait.replicas()));
	}

	/**
	 * One more hold for an owner that holds the lock; a replay of the same request counts once.
	 * @return acquired with the hold count, or not when the owner no longer holds the lock (its hold was lost)
	 */
	Attempt reenter(Keys keys, String owner, long leaseMillis, String requestId) {
		return Attempt.of(this.executor.execute(REENTER, ReturnType.MULTI, 1, keys.lockBytes, utf8(owner),
				number(leaseMillis), utf8(requestId)));
	}

	private static byte[][] acquireArguments(Keys keys, String owner, long leaseMillis, String requestId) {
		return new byte[][] { keys.lockBytes, keys.fenceBytes, utf8(owner), number(leaseMillis), utf8(requestId),
				FENCE_TTL_MILLIS };
	}

	/**
	 * Releases one of several holds, as the client counts them.
	 * @return the holds left, {@code 0} if the lock became free, {@code -1} if the owner does not hold it
	 */
	CompletionStage<Long> release(Keys keys, String owner, long leaseMillis, String requestId) {
		return integer(RELEASE, keys.lockBytes, utf8(owner), number(leaseMillis), utf8(requestId),
				keys.releasedBytes);
	}

	/**
	 * Releases the client's last hold, whatever the stored count, and tells the channel.
	 * @return {@code 0}, or {@code -1} if the owner does not hold the lock
	 */
	CompletionStage<Long> releaseLast(Keys keys, String owner) {
		return integer(RELEASE_LAST, keys.lockBytes, utf8(owner), keys.releasedBytes);
	}

	/**
	 * Gives the client's last hold straight to another owner of the same client.
	 * @return the next owner's fencing token, or {@code -1} if the owner does not hold the lock
	 */
	CompletionStage<Long> handOff(Keys keys, String owner, String nextOwner, long nextLeaseMillis,
			String nextRequestId) {
		return this.executor.<Long>executeAsync(HAND_OFF, ReturnType.INTEGER, 2, keys.lockBytes, keys.fenceBytes,
				utf8(owner), utf8(nextOwner), number(nextLeaseMillis), utf8(nextRequestId), FENCE_TTL_MILLIS)
			.thenApply((reply) -> required(reply, HAND_OFF));
	}

	/**
	 * Undoes the acquisition {@code requestId} should it have taken effect.
	 * @return the holds left, {@code -1} if the owner does not hold the lock, {@code -2} if there was nothing
	 * to undo
	 */
	CompletionStage<Long> undo(Keys keys, String owner, long leaseMillis, String requestId) {
		// Past any availability gate: sent right behind the attempt, it runs as soon as a stalled Redis answers.
		return this.executor.ungated()
			.<Long>executeAsync(UNDO, ReturnType.INTEGER, 1, keys.lockBytes, utf8(owner), number(leaseMillis),
					utf8(requestId), keys.releasedBytes)
			.thenApply((reply) -> required(reply, UNDO));
	}

	/**
	 * Extends the lease while the owner holds the lock; never revives it.
	 * @return whether the lease was extended
	 */
	CompletionStage<Boolean> renew(Keys keys, String owner, long leaseMillis) {
		if (!this.replicaWait.enabled()) {
			return integer(RENEW, keys.lockBytes, utf8(owner), number(leaseMillis)).thenApply((reply) -> reply == 1L);
		}
		// A renewal cannot be undone: a shortfall is reported whatever the policy.
		return this.executor.<Long>executeAndWaitAsync(RENEW, ReturnType.INTEGER, this.replicaWait, 1, keys.lockBytes,
				utf8(owner), number(leaseMillis))
			.thenApply((acknowledged) -> {
				boolean renewed = required(acknowledged.reply(), RENEW) == 1L;
				if (renewed && acknowledged.acknowledged() < this.replicaWait.replicas()) {
					reportShortfall(keys, acknowledged.acknowledged());
				}
				return renewed;
			});
	}

	/**
	 * Raises the last fencing token of the name to at least {@code token}, for the Redlock engine: a later
	 * acquisition on this server then hands out a higher token, and the lock, while {@code owner} holds it here,
	 * records the token as its own (what {@link #holderAsync} reads).
	 * @return the last token stored now
	 */
	CompletionStage<Long> raiseFence(Keys keys, String owner, long token) {
		return this.executor.<Long>executeAsync(RAISE_FENCE, ReturnType.INTEGER, 2, keys.fenceBytes, keys.lockBytes,
				number(token), FENCE_TTL_MILLIS, utf8(owner))
			.thenApply((reply) -> required(reply, RAISE_FENCE));
	}

	/**
	 * Starts a scheduled run when no key exists: a lease of {@code leaseMillis}, never renewed past
	 * {@code atMostMillis} from now on the server's clock.
	 * @return acquired with the run's fencing token, or not with the ms until the key ends
	 */
	CompletionStage<Attempt> startScheduled(Keys keys, String owner, long leaseMillis, long atMostMillis) {
		return this.executor.<List<Object>>executeAsync(SCHEDULED_ACQUIRE, ReturnType.MULTI, 2, keys.lockBytes,
				keys.fenceBytes, utf8(owner), number(leaseMillis), number(atMostMillis), FENCE_TTL_MILLIS)
			.thenApply(Attempt::of);
	}

	/**
	 * Ends a scheduled run: frees the lock, or keeps it until {@code atLeastMillis} after the run's start.
	 * @return {@code 0} when freed, the ms it is kept for, or {@code -1} if the owner does not hold it
	 */
	CompletionStage<Long> endScheduled(Keys keys, String owner, long atLeastMillis) {
		return integer(SCHEDULED_RELEASE, keys.lockBytes, utf8(owner), number(atLeastMillis), keys.releasedBytes);
	}

	/**
	 * Reads a scheduled lock's state, changing nothing.
	 * @return {@code {1, ms left}} held by a run, {@code {2, ms left}} kept for lock-at-least, {@code {0, 0}} free
	 */
	CompletionStage<List<Object>> scheduledState(Keys keys) {
		return this.executor.executeAsync(SCHEDULED_STATE, ReturnType.MULTI, 1, keys.lockBytes);
	}

	/**
	 * Takes every lock of {@code keys} at once, or none: the multi-key lock's step for names in one hash slot.
	 * @return acquired with each name's fencing token in the order of {@code keys}, or not with the index of a
	 * lock another owner holds and the ms until its lease ends
	 */
	CompletionStage<MultiAttempt> acquireAll(List<Keys> keys, String owner, long leaseMillis, String requestId) {
		byte[][] keysAndArgs = new byte[keys.size() * 2 + 4][];
		for (int i = 0; i < keys.size(); i++) {
			keysAndArgs[2 * i] = keys.get(i).lockBytes;
			keysAndArgs[2 * i + 1] = keys.get(i).fenceBytes;
		}
		int args = keys.size() * 2;
		keysAndArgs[args] = utf8(owner);
		keysAndArgs[args + 1] = number(leaseMillis);
		keysAndArgs[args + 2] = utf8(requestId);
		keysAndArgs[args + 3] = FENCE_TTL_MILLIS;
		return this.executor.<List<Object>>executeAsync(MULTILOCK_ACQUIRE, ReturnType.MULTI, args, keysAndArgs)
			.thenApply(MultiAttempt::of);
	}

	/**
	 * Whether the deployment is a Redis Cluster, where one script may only touch keys of one hash slot: the one
	 * detection every primitive uses ({@link CommandExecutor#isCluster()}), told once by the executor.
	 */
	boolean isCluster() {
		return Stages.uninterruptibly(this.commands::isCluster);
	}

	private CompletionStage<Long> integer(LuaScript script, byte[] key, byte[]... args) {
		byte[][] keysAndArgs = new byte[args.length + 1][];
		keysAndArgs[0] = key;
		System.arraycopy(args, 0, keysAndArgs, 1, args.length);
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, 1, keysAndArgs)
			.thenApply((reply) -> required(reply, script));
	}

	/** @return whether any owner holds the lock now */
	boolean isLocked(Keys keys) {
		return Stages.uninterruptibly(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				return Boolean.TRUE.equals(connection.keyCommands().exists(keys.lockBytes));
			}
		});
	}

	CompletionStage<Boolean> isLockedAsync(Keys keys) {
		return this.commands.<Long>executeAsync("EXISTS", ReturnType.INTEGER, keys.lockBytes)
			.thenApply((count) -> count != null && count > 0);
	}

	/** @return how many holds the stored lock counts for this owner, {@code 0} when another owner or none holds it */
	int holdCount(Keys keys, String owner) {
		return Stages.uninterruptibly(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				List<byte[]> fields = connection.hashCommands().hMGet(keys.lockBytes, utf8("o"), utf8("c"));
				if (fields == null || fields.get(0) == null
						|| !owner.equals(new String(fields.get(0), StandardCharsets.UTF_8))) {
					return 0;
				}
				return Integer.parseInt(new String(fields.get(1), StandardCharsets.US_ASCII));
			}
		});
	}

	/**
	 * Reads who holds the lock, changing nothing: the owner and fencing token its hash stores (the lock's and the
	 * fair lock's, which share its shape).
	 * @return the holder, or empty when nobody does
	 */
	CompletionStage<Optional<Engine.Holder>> holderAsync(Keys keys) {
		return this.commands.<List<@Nullable Object>>executeAsync("HMGET", ReturnType.MULTI, keys.lockBytes, utf8("o"),
				utf8("f"))
			.thenApply(LockScripts::holder);
	}

	private static Optional<Engine.Holder> holder(@Nullable List<@Nullable Object> fields) {
		if (fields == null || fields.size() < 2 || fields.get(0) == null || fields.get(1) == null) {
			return Optional.empty();
		}
		return Optional.of(new Engine.Holder(text(fields.get(0)), Long.parseLong(text(fields.get(1)))));
	}

	private static String text(@Nullable Object field) {
		return (field instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(field);
	}

	/**
	 * Waits for a release call: an interrupted thread must still be able to release what it holds, so the wait
	 * ignores interrupts and leaves the flag as it was.
	 */
	static <T> T await(CompletionStage<T> call) {
		try {
			return call.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw ex;
		}
	}

	// What every scripts class of the lock family uses to load its scripts, pass arguments and read replies.

	static long required(@Nullable Long reply, LuaScript script) {
		if (reply == null) {
			throw new IllegalStateException("Redis returned no reply to " + script);
		}
		return reply;
	}

	/** @return the lock family's script {@code META-INF/redis-kit/scripts/lock/<name>.lua} */
	static LuaScript script(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/" + name + ".lua");
	}

	static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * A number as a script argument. The ones every call sends (counts, totals, the watchdog's lease, a waiter
	 * timeout) are encoded once and shared: small ones in a table, others in a few slots a later value may take
	 * over, so that nothing grows with the values used. The driver only reads an argument's bytes.
	 */
	static byte[] number(long value) {
		return EncodedNumbers.of(value);
	}

	/**
	 * The encodings of numbers, in a class of their own so that they exist before any constant of the scripts
	 * classes is encoded.
	 */
	private static final class EncodedNumbers {

		private static final byte[][] SMALL = new byte[256][];

		private static final EncodedNumber[] SLOTS = new EncodedNumber[16];

		static {
			for (int value = 0; value < SMALL.length; value++) {
				SMALL[value] = encode(value);
			}
		}

		static byte[] of(long value) {
			if (value >= 0 && value < SMALL.length) {
				return SMALL[(int) value];
			}
			int slot = (int) (value ^ (value >>> 32)) & (SLOTS.length - 1);
			EncodedNumber encoded = SLOTS[slot];
			if (encoded != null && encoded.value() == value) {
				return encoded.bytes();
			}
			byte[] bytes = encode(value);
			// A racy write of an immutable pair: a reader sees a whole pair, or another, and checks its value.
			SLOTS[slot] = new EncodedNumber(value, bytes);
			return bytes;
		}

		private static byte[] encode(long value) {
			return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
		}

	}

	/** A number and its encoding, shared by the calls that send it. */
	private record EncodedNumber(long value, byte[] bytes) {
	}

	/** The keys and the channel of one lock name, all in its hash slot. */
	static final class Keys {

		/** The full lock name. */
		final String name;

		/** The name metrics are tagged with. */
		final String group;

		/** The hash holding owner, hold count, fencing token and last request id; its TTL is the lease. */
		final String lock;

		/** The last fencing token handed out for the name. */
		final String fence;

		/** The channel told when the lock becomes free. */
		final String released;

		final byte[] lockBytes;

		final byte[] fenceBytes;

		final byte[] releasedBytes;

		/**
		 * The name's further keys, in its hash slot, that a member of the family passes to its scripts, in the
		 * member's order (the read-write lock's hash, readers and waiting writers; the fair lock's line and places);
		 * none for the lock. Named once per handle, as the keys above: naming and encoding them on every call was
		 * most of what the read-write lock allocated per acquisition.
		 */
		final String[] further;

		final byte[][] furtherBytes;

		Keys(String lock, String fence, String released) {
			this(lock, fence, released, lock, lock);
		}

		Keys(String lock, String fence, String released, String name, String group, String... further) {
			this.name = name;
			this.group = group;
			this.lock = lock;
			this.fence = fence;
			this.released = released;
			this.lockBytes = utf8(lock);
			this.fenceBytes = utf8(fence);
			this.releasedBytes = utf8(released);
			this.further = further;
			this.furtherBytes = new byte[further.length][];
			for (int i = 0; i < further.length; i++) {
				this.furtherBytes[i] = utf8(further[i]);
			}
		}

		static Keys of(KeyNaming naming, String name) {
			return of(naming, name, name);
		}

		static Keys of(KeyNaming naming, String name, String group) {
			return new Keys(naming.key("lock", name), naming.key("lock", name, "fence"),
					naming.key("lock", name, "released"), name, group);
		}

	}

	/**
	 * The reply of an acquisition: the lock is held ({@code fencingToken}, {@code holdCount}), or another owner
	 * ({@code holder}, where the script names it) holds it for {@code ttlMillis} more (the script's {@code PTTL}:
	 * {@code 0} in the lease's last millisecond, {@code -1} for a lock without a lease).
	 */
	record Attempt(boolean acquired, long fencingToken, int holdCount, long ttlMillis, @Nullable String holder) {

		static Attempt of(@Nullable List<Object> reply) {
			if (reply == null) {
				throw new IllegalStateException("Redis returned no reply to " + ACQUIRE);
			}
			if ((Long) reply.get(0) == 1L) {
				return new Attempt(true, (Long) reply.get(1), ((Long) reply.get(2)).intValue(), 0, null);
			}
			Object holder = (reply.size() > 2) ? reply.get(2) : null;
			return new Attempt(false, 0, 0, (Long) reply.get(1),
					(holder instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
							: (holder != null) ? holder.toString() : null);
		}

		/**
		 * How long a waiter may sleep before its next attempt without missing the lease's end, which publishes
		 * nothing.
		 * @param maxNanos the longest sleep otherwise
		 * @return the sleep in nanoseconds
		 */
		long sleepNanos(long maxNanos) {
			if (this.ttlMillis == -1) {
				return maxNanos;
			}
			// PTTL 0 (the lease's last millisecond) or -2 (just expired): the lock is free within a millisecond.
			return Math.min(maxNanos, Duration.ofMillis(Math.max(this.ttlMillis, 1)).toNanos());
		}

	}

	/**
	 * The reply of {@link #acquireAll}: every lock is held ({@code fencingTokens}, in the order of the keys), or
	 * the lock at {@code busyIndex} (from 0) is another owner's for {@code ttlMillis} more.
	 */
	record MultiAttempt(boolean acquired, long[] fencingTokens, int busyIndex, long ttlMillis) {

		static MultiAttempt of(@Nullable List<Object> reply) {
			if (reply == null) {
				throw new IllegalStateException("Redis returned no reply to " + MULTILOCK_ACQUIRE);
			}
			if ((Long) reply.get(0) == 1L) {
				long[] tokens = new long[reply.size() - 1];
				for (int i = 0; i < tokens.length; i++) {
					tokens[i] = (Long) reply.get(i + 1);
				}
				return new MultiAttempt(true, tokens, -1, 0);
			}
			return new MultiAttempt(false, new long[0], ((Long) reply.get(1)).intValue() - 1, (Long) reply.get(2));
		}

	}

}

package io.rediskit.lock;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.Background;
import io.rediskit.support.ReleaseSignals;
import io.rediskit.support.Stages;

/**
 * One side of the read-write lock on one Redis deployment: the write side (the registry's engine, which starts
 * the wake-up subscription) or its read sibling ({@link #reading()}), sharing scripts and signals. Readers share
 * the lock, a writer has it alone, and a waiting writer keeps new readers out (writer preference). An owner that
 * writes may read (a downgrade: take the read lock, then release the write lock); an owner that reads may not
 * write (an upgrade would deadlock two readers that both try it), which fails at once.
 */
final class ReadWriteEngine extends WaiterLineEngine {

	final ReadWriteLockScripts scripts;

	private final boolean read;

	private final ReadWriteEngine sibling;

	/** The spec's waiter timeout as the write attempt's argument, encoded once. */
	private final byte[] waiterTimeoutMillis;

	/** Creates the write side and its read sibling. */
	ReadWriteEngine(WaiterLineSpec spec, ReadWriteLockScripts scripts, ReleaseSignals signals) {
		super(spec, signals);
		this.scripts = scripts;
		this.read = false;
		this.waiterTimeoutMillis = LockScripts.number(spec.waiterTimeout().toMillis());
		this.sibling = new ReadWriteEngine(this);
	}

	private ReadWriteEngine(ReadWriteEngine writing) {
		super(writing.spec, writing.signals);
		this.scripts = writing.scripts;
		this.read = true;
		this.waiterTimeoutMillis = writing.waiterTimeoutMillis;
		this.sibling = writing;
	}

	/** @return the read side */
	ReadWriteEngine reading() {
		return this.read ? this : this.sibling;
	}

	@Override
	CompletionStage<Long> reenter(RedisLock lock, LockHold current) {
		return this.scripts.setCount(lock.keys(), this.read, current.owner, current.holdCount() + 1,
				current.leaseMillis);
	}

	/** A thread that reads and asks to write would wait for itself: refused at once. */
	@Override
	void requireMayWait(RedisLock lock, String owner) {
		if (this.read) {
			return;
		}
		LockHold reading = lock.parts().holds().get(ReadWriteLockScripts.readersKey(lock.keys()), owner);
		if (reading != null && !reading.isLost()) {
			throw new IllegalStateException("Lock '" + lock.name() + "' is read by the current thread: release the"
					+ " read lock before taking the write lock (upgrading is not supported; downgrading is)");
		}
	}

	@Override
	public CompletionStage<LockScripts.Attempt> attempt(RedisLock lock, String owner, long leaseMillis,
			String requestId) {
		return this.read ? this.scripts.acquireRead(lock.keys(), owner, leaseMillis)
				: this.scripts.acquireWrite(lock.keys(), owner, leaseMillis, this.waiterTimeoutMillis);
	}

	@Override
	public CompletionStage<?> leave(RedisLock lock, String owner) {
		return this.read ? this.scripts.setCount(lock.keys(), true, owner, 0, 1)
				: this.scripts.leaveWrite(lock.keys(), owner);
	}

	/** Sets the stored count to the client's count less one; the last release ends this side's hold. */
	@Override
	public CompletionStage<Long> release(LockHold hold) {
		return this.scripts.setCount(hold.lock.keys(), this.read, hold.owner, hold.holdCount() - 1L,
				hold.leaseMillis);
	}

	@Override
	CompletionStage<Boolean> extend(LockHold hold) {
		return this.scripts.renew(hold.lock.keys(), this.read, hold.owner, hold.leaseMillis);
	}

	/**
	 * Unsupported: readers are many, and a writer's entry stays in the hash past its lease while readers hold
	 * (only a script on the server's clock tells whether it still writes).
	 */
	@Override
	public CompletionStage<Optional<Holder>> holderAsync(RedisLock lock) {
		throw new UnsupportedOperationException("A read-write lock does not tell who holds it");
	}

	/** @return for the write lock whether a writer holds it, for the read lock whether anyone reads */
	@Override
	public boolean isLocked(RedisLock lock) {
		return Stages.uninterruptibly(() -> LockScripts.await(isLockedAsync(lock)));
	}

	@Override
	public CompletionStage<Boolean> isLockedAsync(RedisLock lock) {
		try {
			return this.scripts.holders(lock.keys(), "")
				.thenApply((holders) -> this.read ? holders.readers() > 0 : holders.writing());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public int holdCount(RedisLock lock, String owner) {
		ReadWriteLockScripts.Holders holders = Stages
			.uninterruptibly(() -> LockScripts.await(this.scripts.holders(lock.keys(), owner)));
		return this.read ? holders.ownReads() : holders.ownWrites();
	}

	/** The write side, the registry's engine, starts the subscription both sides wait on. */
	@Override
	public void start(Background background) {
		if (!this.read) {
			this.signals.start(background);
		}
	}

	@Override
	public void stop() {
		if (!this.read) {
			this.signals.stop();
		}
	}

}

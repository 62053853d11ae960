package io.rediskit.cache;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.rediskit.cache.CacheListener.WaitOutcome;
import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.cache.CacheScripts.Claim;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.cache.Cache.ValueRetrievalException;
import org.springframework.cache.support.NullValue;

/**
 * The single-flight of one cache: of all the callers that miss one entry, in this instance and every other, one
 * loads under the entry's load lease ({@code claim.lua}); the others wait for its outcome, told on the cache's
 * channel ({@link #onOutcome}) or, should the message be lost, found by asking Redis again every
 * {@link #RECHECK_MILLIS}, and take the lease in turn when the wait runs out.
 * <p>
 * The state machine is written once, as stages ({@link Attempt}): claim; then take the value, load as the lease
 * holder, or wait and claim again. Who runs it decides only how its steps run ({@link Steps}): as stages that never
 * block ({@link #loadAsync}, the loader's future awaited without a thread, waits timed on the JDK's delayer), or on
 * the caller's own thread ({@link #load}, every step done before the next is composed, so that the loader runs on
 * the caller's thread and its result is the machine's completed stage: a thin wait, as Caffeine's synchronous view
 * over its asynchronous cache). Plain reads under {@link SingleFlight#EVERY_MISS} ({@link #read}) run the same
 * machine without a loader: the lease is their miss.
 * <p>
 * Within an instance one caller per key talks to Redis; the others wait behind it ({@code inFlight}).
 */
final class CacheFlight {

	/** How often a waiter asks Redis itself, in case the message of the load it waits for is lost. */
	static final long RECHECK_MILLIS = 200;

	/** How many plain reads' leases are held before those that ran out are dropped. */
	private static final int MAX_LEASES = 1024;

	private static final byte[] NONE = CacheScripts.NONE;

	private final CacheStore store;

	private final CacheRefresh refresh;

	private final long loadTimeoutNanos;

	/** The callers of this instance loading or waiting for an entry: one per key talks to Redis. */
	private final ConcurrentHashMap<String, CompletableFuture<Object>> inFlight = new ConcurrentHashMap<>();

	/** The outcome of another instance's load, by key, for the one caller of this instance waiting for it. */
	private final ConcurrentHashMap<String, CompletableFuture<Message>> awaited = new ConcurrentHashMap<>();

	/** The outcome of a load, by key, for the plain reads of this instance waiting for it. */
	private final ConcurrentHashMap<String, CompletableFuture<Message>> plainWaits = new ConcurrentHashMap<>();

	/** The leases taken by plain reads that missed ({@link SingleFlight#EVERY_MISS}), by key, for their put. */
	private final ConcurrentHashMap<String, HeldLease> leases = new ConcurrentHashMap<>();

	CacheFlight(CacheStore store, CacheRefresh refresh) {
		this.store = store;
		this.refresh = refresh;
		this.loadTimeoutNanos = store.spec().loadTimeout().toNanos();
	}

	/**
	 * A read through a loader that runs on the calling thread ({@code get(key, Callable)}).
	 * @return the value, {@link NullValue#INSTANCE} for a null
	 * @throws ValueRetrievalException the loader's failure, or another instance's
	 */
	Object load(Object key, String id, Callable<?> loader) {
		CompletableFuture<Object> mine = new CompletableFuture<>();
		CompletableFuture<Object> ahead = this.inFlight.putIfAbsent(id, mine);
		if (ahead != null) {
			return behind(ahead, key, id, loader);
		}
		try {
			Object value = Stages.join(new Attempt(id, new LoaderCall(key, loader), Steps.BLOCKING).start());
			mine.complete(value);
			return value;
		}
		catch (RuntimeException | Error ex) {
			mine.completeExceptionally(ex);
			throw ex;
		}
		finally {
			this.inFlight.remove(id, mine);
		}
	}

	/** Waits for the caller of this instance ahead on the same key, within the load timeout, then loads itself. */
	private Object behind(CompletableFuture<Object> ahead, Object key, String id, Callable<?> loader) {
		try {
			return ahead.get(TimeUnit.NANOSECONDS.toMillis(this.loadTimeoutNanos) + RECHECK_MILLIS,
					TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = Stages.unwrap(ex.getCause());
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new ValueRetrievalException(key, loader, cause);
		}
		catch (TimeoutException ex) {
			return Stages.join(new Attempt(id, new LoaderCall(key, loader), Steps.BLOCKING).loadAlone());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ValueRetrievalException(key, loader, ex);
		}
	}

	/**
	 * A read through a loader that returns a future ({@code retrieve(key, loader)}), never blocking.
	 * @param inBackground the loader for a reload in the background, which may block
	 * @return a future of the value, {@link NullValue#INSTANCE} for a null
	 */
	CompletableFuture<Object> loadAsync(Object key, String id, Supplier<? extends CompletableFuture<?>> loader,
			Callable<?> inBackground) {
		CompletableFuture<Object> mine = new CompletableFuture<>();
		CompletableFuture<Object> ahead = this.inFlight.putIfAbsent(id, mine);
		if (ahead != null) {
			return ahead;
		}
		Call call = new FutureCall(key, loader, inBackground, this.store.name());
		new Attempt(id, call, Steps.ASYNC).start().whenComplete((value, ex) -> {
			this.inFlight.remove(id, mine);
			if (ex != null) {
				mine.completeExceptionally(Stages.unwrap(ex));
			}
			else {
				mine.complete(value);
			}
		});
		return mine;
	}

	/**
	 * Loads as the holder of a lease taken for a reload in the background, and stores and announces the outcome.
	 * @throws RuntimeException the loader's failure, after it was announced
	 */
	void reload(Object key, String id, Callable<?> loader, byte[] token) {
		Stages.join(new Attempt(id, new LoaderCall(key, loader), Steps.BLOCKING, token).loadAsOwner());
	}

	/**
	 * A plain read under {@link SingleFlight#EVERY_MISS}: the entry, or the load lease (a miss: the caller runs
	 * the method and puts its result, which ends the lease), or a wait for the lease holder's value. A wait that
	 * runs out, or a load that failed elsewhere, is a miss.
	 * @return the value, {@link NullValue#INSTANCE} for a cached null, or {@code null} for a miss
	 */
	@Nullable Object read(String id) {
		return Stages.join(new Attempt(id, null, Steps.BLOCKING).start());
	}

	/**
	 * @return the token of the lease a plain read of this instance took for the entry, to end it with the put of
	 * the value, or {@code null} when it took none or it ran out
	 */
	byte @Nullable [] takeLease(String id) {
		HeldLease lease = this.leases.remove(id);
		return (lease != null && System.nanoTime() - lease.expiresAtNanos() < 0) ? lease.token() : null;
	}

	/** The outcome of a load (a value, a null, a failure), told on the cache's channel: wakes its waiters here. */
	void onOutcome(Message message) {
		CompletableFuture<Message> waiter = this.awaited.get(message.key());
		if (waiter != null) {
			waiter.complete(message);
		}
		CompletableFuture<Message> plain = this.plainWaits.remove(message.key());
		if (plain != null) {
			plain.complete(message);
		}
	}

	/**
	 * Remembers the lease a plain read took, for the {@code put} that ends it. Leases whose method never put
	 * (it threw) are dropped once they ran out, when the map grows.
	 */
	private void holdLease(String id, byte[] token) {
		long now = System.nanoTime();
		if (this.leases.size() >= MAX_LEASES) {
			this.leases.values().removeIf((lease) -> now - lease.expiresAtNanos() > 0);
		}
		this.leases.put(id, new HeldLease(token, now + this.loadTimeoutNanos));
	}

	/** A load lease a plain read of this instance holds. */
	private record HeldLease(byte[] token, long expiresAtNanos) {
	}

	/**
	 * One caller's way through an entry: claim, then take the value, load as the lease holder, or wait for the
	 * holder's outcome and claim again. With a loader call it ends with a value or the load's failure; without
	 * (a plain read), with a value or a miss ({@code null}).
	 */
	private final class Attempt {

		private final String id;

		private final @Nullable Call call;

		private final Steps steps;

		private final byte[] token;

		private final long start = System.nanoTime();

		private final long deadline;

		/** The outcome of the load this caller waits for, told by the message; a plain read's is shared. */
		private final CompletableFuture<Message> outcome = new CompletableFuture<>();

		private boolean waited;

		/** The token of the load this caller waits for, empty before it was told of one. */
		private byte[] holder = NONE;

		Attempt(String id, @Nullable Call call, Steps steps) {
			this(id, call, steps, CacheScripts.newToken());
		}

		Attempt(String id, @Nullable Call call, Steps steps, byte[] token) {
			this.id = id;
			this.call = call;
			this.steps = steps;
			this.token = token;
			// A lease whose method threw runs out without a put: then a waiter takes the next lease and runs the
			// method, so a plain read waits up to two load timeouts before it misses (and runs the method) itself.
			this.deadline = this.start + ((call != null) ? 1 : 2) * CacheFlight.this.loadTimeoutNanos;
		}

		/** Runs the machine; a caller through the loader is told the outcome of the load it waits for. */
		CompletableFuture<Object> start() {
			CompletableFuture<Object> result = new CompletableFuture<>();
			if (this.call == null) {
				next(result);
				return result;
			}
			CacheFlight.this.awaited.put(this.id, this.outcome);
			next(result);
			return result.whenComplete((value, ex) -> CacheFlight.this.awaited.remove(this.id, this.outcome));
		}

		/**
		 * Claims until a claim decides. A blocking caller's claims and waits are done when they return: it goes
		 * round in this loop, so that its stack does not grow with each wait; an asynchronous caller comes back to
		 * it from the stage's completion.
		 */
		private void next(CompletableFuture<Object> result) {
			while (true) {
				CompletableFuture<@Nullable CompletableFuture<Object>> claim = claim();
				if (!claim.isDone()) {
					claim.whenComplete((decided, ex) -> {
						if (ex != null) {
							result.completeExceptionally(Stages.unwrap(ex));
						}
						else if (decided == null) {
							next(result);
						}
						else {
							settle(decided, result);
						}
					});
					return;
				}
				CompletableFuture<Object> decided;
				try {
					decided = claim.join();
				}
				catch (CompletionException | CancellationException ex) {
					result.completeExceptionally(Stages.unwrap(ex));
					return;
				}
				if (decided != null) {
					settle(decided, result);
					return;
				}
			}
		}

		private void settle(CompletableFuture<Object> decided, CompletableFuture<Object> result) {
			decided.whenComplete((value, ex) -> {
				if (ex != null) {
					result.completeExceptionally(Stages.unwrap(ex));
				}
				else {
					result.complete(value);
				}
			});
		}

		/** @return a future of what the claim decided, or of {@code null} to claim again */
		private CompletableFuture<@Nullable CompletableFuture<Object>> claim() {
			NearCopies.Snapshot snapshot = CacheFlight.this.store.near().snapshot();
			// A plain read that waited misses whatever ended the load it waited for: it asks for no outcome.
			byte[] waitingFor = (this.call != null) ? this.holder : NONE;
			return this.steps.claim(CacheFlight.this.store.scripts(), this.id, this.token, waitingFor)
				.handle((claim, ex) -> {
					if (ex != null) {
						CacheFlight.this.store.outage(CacheStore.asRuntime(Stages.unwrap(ex)));
						return CompletableFuture.completedFuture(unreachable());
					}
					return claimed(claim, snapshot);
				})
				.thenCompose((next) -> next);
		}

		private CompletableFuture<@Nullable CompletableFuture<Object>> claimed(Claim claim,
				NearCopies.Snapshot snapshot) {
			switch (claim.state()) {
				case FOUND -> {
					return CompletableFuture.completedFuture(found(claim, snapshot));
				}
				case ENDED -> {
					// The load waited for ended, storing nothing, and its message has not come (yet).
					return CompletableFuture.completedFuture(received(Message.read(claim.bytes())));
				}
				default -> {
				}
			}
			if (!this.waited) {
				CacheFlight.this.store.miss();
			}
			if (claim.state() == CacheScripts.Claimed.LEASED) {
				return CompletableFuture.completedFuture(leased());
			}
			this.waited = true;
			this.holder = claim.bytes();
			long left = this.deadline - System.nanoTime();
			if (left <= 0) {
				CacheFlight.this.store.waitEnded(this.start, WaitOutcome.TIMEOUT);
				return CompletableFuture.completedFuture((this.call != null) ? loadAlone() : nothing());
			}
			return this.steps.await(outcome(), Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)))
				.handle((message, ex) -> {
					if (ex != null) {
						return interrupted(Stages.unwrap(ex));
					}
					return (message != null) ? received(message) : null;
				});
		}

		/** @return the outcome to wait for: this caller's, or the one the plain reads of the key share */
		private CompletableFuture<Message> outcome() {
			if (this.call != null) {
				return this.outcome;
			}
			// A message that came before it is made up for by the recheck.
			return CacheFlight.this.plainWaits.computeIfAbsent(this.id, (key) -> new CompletableFuture<>());
		}

		private CompletableFuture<Object> found(Claim claim, NearCopies.Snapshot snapshot) {
			CacheStore store = CacheFlight.this.store;
			Object value = store.decode(claim.bytes());
			long left = store.spec().freshMillis(claim.pttl());
			if (this.call == null) {
				// Without the loader an entry past its TTL cannot be revalidated: a miss, and the method reloads it.
				if (value == null || left <= 0) {
					store.miss();
					return nothing();
				}
				snapshot.keep(this.id, value, left);
				store.hit(CacheTier.REDIS);
			}
			else if (value == null) {
				// Unreadable bytes hold the entry: a miss; load and overwrite them rather than wait for their TTL.
				if (!this.waited) {
					store.miss();
				}
				return loadAlone().thenApply((loaded) -> {
					if (loaded != NullValue.INSTANCE || store.spec().cacheNullValues()) {
						this.steps.write(store, this.id, loaded);
					}
					return loaded;
				});
			}
			else {
				Callable<?> reloader = this.call.inBackground();
				if (left <= 0) {
					CacheFlight.this.refresh.expired(this.call.key(), this.id, reloader, claim.pttl());
				}
				else {
					snapshot.keep(this.id, value, left);
					CacheFlight.this.refresh.early(this.call.key(), this.id, reloader, left);
				}
				store.hit(CacheTier.REDIS);
			}
			if (this.waited) {
				store.waitEnded(this.start, WaitOutcome.VALUE);
			}
			return CompletableFuture.completedFuture(value);
		}

		/** The outcome of the load this caller waited for. */
		private CompletableFuture<Object> received(Message message) {
			CacheStore store = CacheFlight.this.store;
			if (message.type() == CacheMessages.LOADED_NULL) {
				store.waitEnded(this.start, WaitOutcome.VALUE);
				return CompletableFuture.completedFuture(
						(this.call != null || store.spec().cacheNullValues()) ? NullValue.INSTANCE : null);
			}
			Object value = (message.type() == CacheMessages.LOADED) ? store.decode(message.payload()) : null;
			if (this.call == null) {
				store.waitEnded(this.start, (value != null) ? WaitOutcome.VALUE : WaitOutcome.FAILURE);
				return CompletableFuture.completedFuture(value);
			}
			if (message.type() == CacheMessages.LOADED) {
				if (value == null) {
					return loadAlone();
				}
				store.waitEnded(this.start, WaitOutcome.VALUE);
				return CompletableFuture.completedFuture(value);
			}
			store.waitEnded(this.start, WaitOutcome.FAILURE);
			return CompletableFuture.failedFuture(this.call.failed(new CacheLoadFailedException("Cache '"
					+ store.name() + "': the load of this entry failed in another instance: "
					+ new String(message.payload(), StandardCharsets.UTF_8))));
		}

		/** This caller holds the lease: it loads, or, for a plain read, misses and its put will end the lease. */
		private CompletableFuture<Object> leased() {
			if (this.call == null) {
				holdLease(this.id, this.token);
				return nothing();
			}
			return loadAsOwner();
		}

		/** Redis cannot answer: the near cache's last copy under {@link OutagePolicy#SERVE_STALE}, else no cache. */
		private CompletableFuture<Object> unreachable() {
			Object stale = CacheFlight.this.store.near().stale(this.id);
			if (stale != null) {
				return CompletableFuture.completedFuture(stale);
			}
			if (this.call == null) {
				CacheFlight.this.store.miss();
				return nothing();
			}
			return loadAlone();
		}

		/** The blocking wait of this caller was interrupted: a failure, or, for a plain read, a miss. */
		private CompletableFuture<Object> interrupted(Throwable interruption) {
			return (this.call != null) ? CompletableFuture.failedFuture(this.call.failed(interruption)) : nothing();
		}

		/** @return a plain read's miss */
		private CompletableFuture<Object> nothing() {
			return CompletableFuture.completedFuture(null);
		}

		/** Loads as the lease holder; the outcome is stored and told to every waiter before the future ends. */
		CompletableFuture<Object> loadAsOwner() {
			CacheStore store = CacheFlight.this.store;
			long began = System.nanoTime();
			return this.call.load().handle((loaded, ex) -> {
				if (ex != null) {
					Throwable failure = Stages.unwrap(ex);
					store.loaded(began, false);
					return this.steps.fill(store, this.id, this.token, CacheStore.failedMessage(this.id, failure))
						.thenCompose((ignored) -> CompletableFuture.<Object>failedFuture(this.call.failed(failure)));
				}
				store.loaded(began, true);
				Object stored = (loaded != null) ? loaded : NullValue.INSTANCE;
				if (stored == NullValue.INSTANCE && !store.spec().cacheNullValues()) {
					return this.steps.fill(store, this.id, this.token, CacheStore.nullMessage(this.id))
						.thenApply((ignored) -> stored);
				}
				byte[] bytes;
				try {
					bytes = store.encode(stored);
				}
				catch (RuntimeException encoding) {
					return this.steps
						.fill(store, this.id, this.token, CacheStore.uncacheableMessage(this.id, encoding))
						.thenCompose((ignored) -> CompletableFuture.<Object>failedFuture(encoding));
				}
				return this.steps.store(store, this.id, this.token, stored, bytes).thenApply((ignored) -> stored);
			}).thenCompose((next) -> next);
		}

		/** Loads without a lease: Redis is down, the wait ran out, or the entry holds unreadable bytes. */
		CompletableFuture<Object> loadAlone() {
			long began = System.nanoTime();
			return this.call.load().handle((loaded, ex) -> {
				CacheFlight.this.store.loaded(began, ex == null);
				if (ex != null) {
					Throwable failure = this.call.failed(Stages.unwrap(ex));
					throw CacheStore.asRuntime(failure);
				}
				return (loaded != null) ? loaded : NullValue.INSTANCE;
			});
		}

	}

	/** A loader and what its caller is given when it, or another instance's load, fails. */
	private interface Call {

		Object key();

		/** @return a future of the loader's result; a failure is the loader's own */
		CompletableFuture<?> load();

		/** @return what the caller is given for a failure of the load */
		Throwable failed(Throwable failure);

		/** @return the loader for a reload in the background, which may block */
		Callable<?> inBackground();

	}

	/**
	 * A loader run on the calling thread; its failure reaches the caller as a {@link ValueRetrievalException}
	 * (Spring's contract for {@code get(key, Callable)}), an {@link Error} as it is.
	 */
	private record LoaderCall(Object key, Callable<?> loader) implements Call {

		@Override
		public CompletableFuture<?> load() {
			try {
				return CompletableFuture.completedFuture(this.loader.call());
			}
			catch (Throwable ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Override
		public Throwable failed(Throwable failure) {
			return (failure instanceof Error) ? failure : new ValueRetrievalException(this.key, this.loader, failure);
		}

		@Override
		public Callable<?> inBackground() {
			return this.loader;
		}

	}

	/** A loader that returns a future; its failure reaches the caller as it is. */
	private record FutureCall(Object key, Supplier<? extends CompletableFuture<?>> loader,
			Callable<?> inBackground, String cacheName) implements Call {

		@Override
		public CompletableFuture<?> load() {
			try {
				CompletableFuture<?> future = this.loader.get();
				return (future != null) ? future : CompletableFuture.failedFuture(
						new IllegalStateException("Cache '" + this.cacheName + "': the loader returned no future"));
			}
			catch (RuntimeException | Error ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Override
		public Throwable failed(Throwable failure) {
			return failure;
		}

	}

	/**
	 * How a caller's steps that talk to Redis or wait run: {@link #ASYNC} as stages that never block, or
	 * {@link #BLOCKING} on the caller's thread, each returned done.
	 */
	private enum Steps {

		ASYNC {

			@Override
			CompletableFuture<Claim> claim(CacheScripts scripts, String id, byte[] token, byte[] holder) {
				return scripts.claimAsync(id, token, holder);
			}

			@Override
			CompletableFuture<@Nullable Message> await(CompletableFuture<Message> outcome, long nanos) {
				// A copy, so that the timeout of this wait does not complete the outcome itself.
				return outcome.copy().completeOnTimeout(null, nanos, TimeUnit.NANOSECONDS);
			}

			@Override
			CompletableFuture<Boolean> fill(CacheStore store, String id, byte[] token, byte[] message) {
				return store.fillAsync(id, token, NONE, 0, message);
			}

			@Override
			CompletableFuture<Boolean> store(CacheStore store, String id, byte[] token, Object stored, byte[] bytes) {
				return store.storeAsync(id, token, stored, bytes);
			}

			@Override
			void write(CacheStore store, String id, Object stored) {
				store.writeAsync(id, stored);
			}

		},

		BLOCKING {

			@Override
			CompletableFuture<Claim> claim(CacheScripts scripts, String id, byte[] token, byte[] holder) {
				try {
					return CompletableFuture.completedFuture(scripts.claim(id, token, holder));
				}
				catch (RuntimeException ex) {
					return CompletableFuture.failedFuture(ex);
				}
			}

			@Override
			CompletableFuture<@Nullable Message> await(CompletableFuture<Message> outcome, long nanos) {
				try {
					return CompletableFuture.completedFuture(outcome.get(nanos, TimeUnit.NANOSECONDS));
				}
				catch (TimeoutException ex) {
					return CompletableFuture.completedFuture(null);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return CompletableFuture.failedFuture(ex);
				}
				catch (ExecutionException ex) {
					throw new IllegalStateException("A load outcome never completes exceptionally", ex);
				}
			}

			@Override
			CompletableFuture<Boolean> fill(CacheStore store, String id, byte[] token, byte[] message) {
				return CompletableFuture.completedFuture(store.fill(id, token, NONE, 0, message));
			}

			@Override
			CompletableFuture<Boolean> store(CacheStore store, String id, byte[] token, Object stored, byte[] bytes) {
				return CompletableFuture.completedFuture(store.store(id, token, stored, bytes));
			}

			@Override
			void write(CacheStore store, String id, Object stored) {
				store.write(id, stored);
			}

		};

		abstract CompletableFuture<Claim> claim(CacheScripts scripts, String id, byte[] token, byte[] holder);

		/** @return a future of the outcome, or of {@code null} if none came within {@code nanos} */
		abstract CompletableFuture<@Nullable Message> await(CompletableFuture<Message> outcome, long nanos);

		/** Ends a load that stores nothing; a future of whether Redis ran it. */
		abstract CompletableFuture<Boolean> fill(CacheStore store, String id, byte[] token, byte[] message);

		/** Ends a load that stores its value; a future of whether Redis ran it. */
		abstract CompletableFuture<Boolean> store(CacheStore store, String id, byte[] token, Object stored,
				byte[] bytes);

		/** Overwrites unreadable bytes with a loaded value. */
		abstract void write(CacheStore store, String id, Object stored);

	}

}

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

import io.micrometer.observation.Observation;
import io.rediskit.cache.CacheListener.WaitOutcome;
import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.cache.CacheScripts.Claim;
import io.rediskit.support.Observations;
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
 * The state machine is written once, as stages ({@link Attempt}): claim; then take the value, hold the lease, or
 * wait and claim again. What a caller does at those ends is its kind's: a read through a loader ({@link Loading})
 * loads as the lease holder, or alone when Redis cannot answer or its wait runs out; a plain read under
 * {@link SingleFlight#EVERY_MISS} ({@link PlainRead}, {@link #read}) misses instead, its lease ended by its put.
 * How the steps run is the caller's ({@link Steps}): as stages that never block ({@link #loadAsync}, the loader's
 * future awaited without a thread, waits timed on the JDK's delayer), or on the caller's own thread ({@link #load},
 * each step done when it returns, so that the loader runs on the caller's thread and the machine's stage is
 * complete when the call returns: a thin wait, as Caffeine's synchronous view over its asynchronous cache).
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
			Object value = Stages.join(new Loading(id, new LoaderCall(key, loader), Steps.BLOCKING).start());
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
			return Stages.join(new Loading(id, new LoaderCall(key, loader), Steps.BLOCKING).loadAlone());
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
		new Loading(id, call, Steps.ASYNC).start().whenComplete((value, ex) -> {
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
		Stages.join(new Loading(id, new LoaderCall(key, loader), Steps.BLOCKING, token).loadAsOwner());
	}

	/**
	 * A plain read under {@link SingleFlight#EVERY_MISS}: the entry, or the load lease (a miss: the caller runs
	 * the method and puts its result, which ends the lease), or a wait for the lease holder's value. A wait that
	 * runs out, or a load that failed elsewhere, is a miss.
	 * @return the value, {@link NullValue#INSTANCE} for a cached null, or {@code null} for a miss
	 */
	@Nullable Object read(String id) {
		return Stages.join(new PlainRead(id).start());
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
	 * The state machine: one caller's way through an entry. Claim; then take the value, hold the lease, or wait
	 * for the holder's outcome (the message, or the next claim's answer) and claim again, until the wait runs out.
	 * What a caller does at each of those ends is its kind's: {@link Loading} (through a loader) or
	 * {@link PlainRead}.
	 */
	private abstract class Attempt {

		final String id;

		final Steps steps;

		final byte[] token;

		final long start = System.nanoTime();

		private final long deadline;

		boolean waited;

		/** The observation of this caller's wait for another's load, from its first claim that found one. */
		private Observation wait = Observation.NOOP;

		/** The token of the load this caller waits for, empty before it was told of one. */
		byte[] holder = NONE;

		Attempt(String id, Steps steps, byte[] token, long waitNanos) {
			this.id = id;
			this.steps = steps;
			this.token = token;
			this.deadline = this.start + waitNanos;
		}

		/** Reports the end of the wait for another caller's load, and ends its observation. */
		final void waitEnded(WaitOutcome outcome) {
			CacheFlight.this.store.waitEnded(this.start, outcome);
			Observation ended = this.wait;
			this.wait = Observation.NOOP;
			Observations.stop(ended, switch (outcome) {
				case VALUE -> "waited";
				case TIMEOUT -> "timeout";
				case FAILURE -> "error";
			});
		}

		/** Ends the wait's observation when the wait itself failed (interrupted, cancelled): no outcome was told. */
		private void waitFailed(Throwable failure) {
			Observation ended = this.wait;
			this.wait = Observation.NOOP;
			Observations.stop(ended, "error", failure);
		}

		/** @return a future of the value, {@link NullValue#INSTANCE} for a null, or {@code null} for a miss */
		CompletableFuture<Object> start() {
			CompletableFuture<Object> result = new CompletableFuture<>();
			next(result);
			return result;
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
			return this.steps.claim(CacheFlight.this.store.scripts(), this.id, this.token, waitingFor())
				.handle((claim, ex) -> {
					if (ex != null) {
						CacheFlight.this.store.outage(CacheStore.asRuntime(Stages.unwrap(ex)));
						Object stale = CacheFlight.this.store.near().stale(this.id);
						return CompletableFuture.completedFuture(
								(stale != null) ? CompletableFuture.completedFuture(stale) : withoutRedis());
					}
					return claimed(claim, snapshot);
				})
				.thenCompose((next) -> next);
		}

		private CompletableFuture<@Nullable CompletableFuture<Object>> claimed(Claim claim,
				NearCopies.Snapshot snapshot) {
			CacheStore store = CacheFlight.this.store;
			switch (claim.state()) {
				case FOUND -> {
					Object value = store.decode(claim.bytes());
					CompletableFuture<Object> found = found(value, claim.pttl(), snapshot);
					if (found == null) {
						if (this.waited) {
							waitEnded(WaitOutcome.VALUE);
						}
						found = CompletableFuture.completedFuture(value);
					}
					return CompletableFuture.completedFuture(found);
				}
				case ENDED -> {
					// The load waited for ended, storing nothing, and its message has not come (yet).
					return CompletableFuture.completedFuture(received(Message.read(claim.bytes())));
				}
				default -> {
				}
			}
			if (!this.waited) {
				store.miss();
			}
			if (claim.state() == CacheScripts.Claimed.LEASED) {
				return CompletableFuture.completedFuture(leased());
			}
			if (!this.waited) {
				this.wait = store.startLoad();
			}
			this.waited = true;
			this.holder = claim.bytes();
			long left = this.deadline - System.nanoTime();
			if (left <= 0) {
				waitEnded(WaitOutcome.TIMEOUT);
				return CompletableFuture.completedFuture(timedOut());
			}
			return this.steps.await(outcome(), Math.min(left, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)))
				.handle((message, ex) -> {
					if (ex != null) {
						waitFailed(Stages.unwrap(ex));
						return interrupted(Stages.unwrap(ex));
					}
					return (message != null) ? received(message) : null;
				});
		}

		/** @return the token of the load whose outcome the claim may answer with, {@link #NONE} for none */
		abstract byte[] waitingFor();

		/** @return the outcome to wait for */
		abstract CompletableFuture<Message> outcome();

		/**
		 * The entry exists.
		 * @param value its value, {@code null} if its bytes cannot be read
		 * @return what this caller does instead of taking the value, or {@code null} to take it
		 */
		abstract @Nullable CompletableFuture<Object> found(@Nullable Object value, long pttl,
				NearCopies.Snapshot snapshot);

		/** The outcome of the load this caller waited for. */
		abstract CompletableFuture<Object> received(Message message);

		/** This caller holds the lease now. */
		abstract CompletableFuture<Object> leased();

		/** The wait ran out. */
		abstract CompletableFuture<Object> timedOut();

		/** Redis cannot answer, and the near cache holds no copy to serve. */
		abstract CompletableFuture<Object> withoutRedis();

		/** The blocking wait of this caller was interrupted. */
		abstract CompletableFuture<Object> interrupted(Throwable interruption);

	}

	/**
	 * A read through a loader: it ends with a value (the entry's, its own load's, another caller's) or the load's
	 * failure, and loads itself, without a lease, when Redis cannot answer or its wait runs out.
	 */
	private final class Loading extends Attempt {

		private final Call call;

		/** The outcome of the load this caller waits for, told by the message. */
		private final CompletableFuture<Message> outcome = new CompletableFuture<>();

		Loading(String id, Call call, Steps steps) {
			this(id, call, steps, CacheScripts.newToken());
		}

		Loading(String id, Call call, Steps steps, byte[] token) {
			super(id, steps, token, CacheFlight.this.loadTimeoutNanos);
			this.call = call;
		}

		/** Runs the machine, told the outcome of the load it waits for while it runs. */
		@Override
		CompletableFuture<Object> start() {
			CacheFlight.this.awaited.put(this.id, this.outcome);
			return super.start().whenComplete((value, ex) -> CacheFlight.this.awaited.remove(this.id, this.outcome));
		}

		@Override
		byte[] waitingFor() {
			return this.holder;
		}

		@Override
		CompletableFuture<Message> outcome() {
			return this.outcome;
		}

		/**
		 * Keeps a fresh value in the near cache, and starts a reload in the background when it is past its TTL
		 * (stale-while-revalidate) or, by chance, close to it (early refresh). Unreadable bytes are a miss: loaded
		 * and overwritten rather than left until their TTL ends.
		 */
		@Override
		@Nullable CompletableFuture<Object> found(@Nullable Object value, long pttl, NearCopies.Snapshot snapshot) {
			CacheStore store = CacheFlight.this.store;
			if (value == null) {
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
			long left = store.spec().freshMillis(pttl);
			if (left <= 0) {
				CacheFlight.this.refresh.expired(this.call.key(), this.id, this.call.inBackground(), pttl);
			}
			else {
				snapshot.keep(this.id, value, left);
				CacheFlight.this.refresh.early(this.call.key(), this.id, this.call.inBackground(), left);
			}
			store.hit(CacheTier.REDIS);
			return null;
		}

		@Override
		CompletableFuture<Object> received(Message message) {
			CacheStore store = CacheFlight.this.store;
			switch (message.type()) {
				case CacheMessages.LOADED -> {
					Object value = store.decode(message.payload());
					if (value == null) {
						return loadAlone();
					}
					waitEnded(WaitOutcome.VALUE);
					return CompletableFuture.completedFuture(value);
				}
				case CacheMessages.LOADED_NULL -> {
					waitEnded(WaitOutcome.VALUE);
					return CompletableFuture.completedFuture(NullValue.INSTANCE);
				}
				default -> {
					waitEnded(WaitOutcome.FAILURE);
					return CompletableFuture.failedFuture(this.call.failed(new CacheLoadFailedException("Cache '"
							+ store.name() + "': the load of this entry failed in another instance: "
							+ new String(message.payload(), StandardCharsets.UTF_8))));
				}
			}
		}

		@Override
		CompletableFuture<Object> leased() {
			return loadAsOwner();
		}

		@Override
		CompletableFuture<Object> timedOut() {
			return loadAlone();
		}

		@Override
		CompletableFuture<Object> withoutRedis() {
			return loadAlone();
		}

		@Override
		CompletableFuture<Object> interrupted(Throwable interruption) {
			return CompletableFuture.failedFuture(this.call.failed(interruption));
		}

		/** Loads as the lease holder; the outcome is stored and told to every waiter before the future ends. */
		CompletableFuture<Object> loadAsOwner() {
			CacheStore store = CacheFlight.this.store;
			long began = System.nanoTime();
			Observation load = store.startLoad();
			return loadInScope(this.call, load).handle((loaded, ex) -> {
				if (ex != null) {
					Throwable failure = Stages.unwrap(ex);
					store.loaded(began, false);
					Observations.stop(load, "error", failure);
					return this.steps.fill(store, this.id, this.token, CacheStore.failedMessage(this.id, failure))
						.thenCompose((ignored) -> CompletableFuture.<Object>failedFuture(this.call.failed(failure)));
				}
				store.loaded(began, true);
				Observations.stop(load, "loaded");
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
			Observation load = CacheFlight.this.store.startLoad();
			return loadInScope(this.call, load).handle((loaded, ex) -> {
				CacheFlight.this.store.loaded(began, ex == null);
				Observations.stop(load, (ex == null) ? "loaded" : "error", ex);
				if (ex != null) {
					throw CacheStore.asRuntime(this.call.failed(Stages.unwrap(ex)));
				}
				return (loaded != null) ? loaded : NullValue.INSTANCE;
			});
		}

	}

	/**
	 * A plain read under {@link SingleFlight#EVERY_MISS}: it ends with a value or a miss ({@code null}); its lease
	 * is a miss whose {@code put} ends the lease. A lease whose method threw runs out without a put: then a waiter
	 * takes the next lease and runs the method, so a plain read waits up to two load timeouts before it misses (and
	 * runs the method) itself.
	 */
	private final class PlainRead extends Attempt {

		PlainRead(String id) {
			super(id, Steps.BLOCKING, CacheScripts.newToken(), 2 * CacheFlight.this.loadTimeoutNanos);
		}

		/** A plain read that waited misses whatever ended the load it waited for: it asks for no outcome. */
		@Override
		byte[] waitingFor() {
			return NONE;
		}

		/** Shared by the plain reads of the key; a message that came before it is made up for by the recheck. */
		@Override
		CompletableFuture<Message> outcome() {
			return CacheFlight.this.plainWaits.computeIfAbsent(this.id, (key) -> new CompletableFuture<>());
		}

		/** Without the loader an entry past its TTL cannot be revalidated: a miss, and the method reloads it. */
		@Override
		@Nullable CompletableFuture<Object> found(@Nullable Object value, long pttl, NearCopies.Snapshot snapshot) {
			CacheStore store = CacheFlight.this.store;
			long left = store.spec().freshMillis(pttl);
			if (value == null || left <= 0) {
				store.miss();
				return miss();
			}
			snapshot.keep(this.id, value, left);
			store.hit(CacheTier.REDIS);
			return null;
		}

		@Override
		CompletableFuture<Object> received(Message message) {
			CacheStore store = CacheFlight.this.store;
			if (message.type() == CacheMessages.LOADED_NULL) {
				waitEnded(WaitOutcome.VALUE);
				return CompletableFuture.completedFuture(store.spec().cacheNullValues() ? NullValue.INSTANCE : null);
			}
			Object value = (message.type() == CacheMessages.LOADED) ? store.decode(message.payload()) : null;
			waitEnded((value != null) ? WaitOutcome.VALUE : WaitOutcome.FAILURE);
			return CompletableFuture.completedFuture(value);
		}

		@Override
		CompletableFuture<Object> leased() {
			holdLease(this.id, this.token);
			return miss();
		}

		@Override
		CompletableFuture<Object> timedOut() {
			return miss();
		}

		@Override
		CompletableFuture<Object> withoutRedis() {
			CacheFlight.this.store.miss();
			return miss();
		}

		/** The interrupt stays set for the caller; the read is a miss. */
		@Override
		CompletableFuture<Object> interrupted(Throwable interruption) {
			return miss();
		}

		private CompletableFuture<Object> miss() {
			return CompletableFuture.completedFuture(null);
		}

	}

	/**
	 * Calls the loader with the load's observation in scope while it runs (or, for a loader that returns a future,
	 * while it starts its work), so that what the loader does (its own database or HTTP calls) is the load's child.
	 */
	private static CompletableFuture<?> loadInScope(Call call, Observation load) {
		try (Observation.Scope scope = load.openScope()) {
			return call.load();
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

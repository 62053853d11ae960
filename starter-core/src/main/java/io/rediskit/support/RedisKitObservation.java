package io.rediskit.support;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;
import org.jspecify.annotations.Nullable;

/**
 * Every observation redis-kit makes, its name and its tags: the one instrumentation contract of the primitives
 * (docs/observability.md). Each is made through {@link Observations}, named by this constant (a
 * {@link RedisKitObservationConvention} may rename it), and tagged by the convention with the low-cardinality
 * keys listed here only: the configured name of the lock, limiter, cache, queue or structure, the outcome, and at
 * most one detail (the lock's member of the family, the limiter's algorithm, the tier that answered a lookup, the
 * operation of a structure's or the key tools' call, the source of an enqueue). A key a caller computes (a SpEL
 * expression's value, a message id) or a key pattern is never a tag.
 * <p>
 * Meters come from the observations through Micrometer's {@code DefaultMeterObservationHandler}: a timer named as
 * the observation, tagged as it is, with {@code error} for the exception's type, and a long-task timer
 * {@code <name>.active} of the observations in progress.
 */
public enum RedisKitObservation implements ObservationDocumentation {

	/**
	 * A lock of the family is waited for: from the call to its outcome ({@code acquired}, {@code timeout},
	 * {@code skipped}, {@code interrupted}, {@code error}); a timeout ends it with the
	 * {@code LockNotAcquiredException}'s kind of error only when the caller is thrown one, else as an outcome.
	 */
	LOCK_WAIT("rediskit.lock.wait", "lock wait", Keys.KIND),

	/**
	 * A lock of the family is held: from its first acquisition to its last release ({@code released}), its loss
	 * ({@code lost}, with the {@code LockLeaseLostException}), a release that could not reach Redis
	 * ({@code error}), or, for a Redlock round that won after its caller cancelled the wait, its freeing at once
	 * ({@code abandoned}).
	 */
	LOCK_HOLD("rediskit.lock.hold", "lock hold", Keys.KIND),

	/**
	 * A wait for a count-down latch to open: from the call to its outcome ({@code opened}, {@code timeout},
	 * {@code interrupted} when the thread was interrupted, the caller cancelled or the registry stopped,
	 * {@code error} when Redis failed to answer). A timeout is an outcome, not an error: the caller is answered
	 * {@code false}.
	 */
	LATCH_AWAIT("rediskit.latch.await", "latch await", null),

	/** A rate limit decision: {@code allowed} or {@code rejected}, or {@code error} when Redis failed to answer. */
	RATE_LIMIT("rediskit.ratelimit.decision", "rate limit", Keys.ALGORITHM),

	/**
	 * A cache lookup ({@code Cache.get(key)}, {@code retrieve(key)}): {@code hit} (tier {@code near} or
	 * {@code redis}, a cached null included) or {@code miss} (tier {@code none}), or {@code error}. A read through a
	 * loader ({@code get(key, loader)}) is observed as its load or wait ({@link #CACHE_LOAD}).
	 */
	CACHE_LOOKUP("rediskit.cache.lookup", "cache lookup", Keys.TIER),

	/**
	 * A cache miss resolved through the single flight: the caller loaded the value ({@code loaded}), or waited for
	 * another caller's load ({@code waited}), or the load failed ({@code error}).
	 */
	CACHE_LOAD("rediskit.cache.load", "cache load", null),

	/**
	 * A message enqueued, one observation per call (a batch's, or a recurring job's tick, included): {@code enqueued},
	 * or the deduplication's outcome ({@code duplicate}, {@code replaced}), or {@code error}; its source
	 * ({@link Keys#SOURCE}) is {@code caller} for a call of the queue, {@code recurring} for a recurring job's slots,
	 * which also end as {@code taken} (another instance enqueued them), {@code paused} (the job is paused) or
	 * {@code not-due} (not due yet on the server's clock: offered again). Its trace context goes with the message in
	 * its headers.
	 */
	QUEUE_ENQUEUE("rediskit.queue.enqueue", "queue enqueue", Keys.SOURCE),

	/**
	 * A delivered message handled by a queue listener: the handler's run, a child of the enqueuing span; the
	 * outcome is how the delivery was settled ({@code ack}, {@code retry}, {@code settled} when the handler settled
	 * it itself).
	 */
	QUEUE_HANDLE("rediskit.queue.handle", "queue handle", null),

	/**
	 * A call of a check-in calendar, daily activity or packed counters: {@code check-in}, {@code streak},
	 * {@code mark-active}, {@code retention}, {@code increment}, ...; outcome {@code success}, {@code refused} (a
	 * write past the retention) or {@code error}.
	 */
	BITMAP_OPERATION("rediskit.bitmap.operation", "bitmap", Keys.OPERATION),

	/** A call of a Bloom filter ({@code add}, {@code contains}, one item or a batch): {@code success} or {@code error}. */
	BLOOM_OPERATION("rediskit.bloom.operation", "bloom", Keys.OPERATION),

	/**
	 * A call of a unique counter ({@code add}, {@code count}, {@code union} under the first counter):
	 * {@code success}, {@code refused} (an add past the retention) or {@code error}.
	 */
	COUNTER_OPERATION("rediskit.counter.operation", "counter", Keys.OPERATION),

	/**
	 * A call of a geo index ({@code put}, {@code put-all}, {@code remove}, {@code position}, {@code distance},
	 * {@code nearby}, {@code sweep}): {@code success} or {@code error}.
	 */
	GEO_OPERATION("rediskit.geo.operation", "geo", Keys.OPERATION),

	/** A block of ids reserved by an id generator (operation {@code block}): {@code success} or {@code error}. */
	ID_OPERATION("rediskit.id.operation", "id", Keys.OPERATION),

	/**
	 * A call of a leaderboard ({@code write}, {@code increment}, {@code read}, {@code post}, {@code vote}):
	 * {@code success} or {@code error}.
	 */
	RANK_OPERATION("rediskit.rank.operation", "leaderboard", Keys.OPERATION),

	/**
	 * A call of a recent-items list ({@code view}, {@code recent}, {@code trending}, {@code forget}):
	 * {@code success} or {@code error}.
	 */
	RECENT_OPERATION("rediskit.recent.operation", "recent items", Keys.OPERATION),

	/**
	 * A call of the key tools, the whole of it however long it runs ({@code scan}: a scan from its first batch to
	 * its end or its {@code close()}; {@code big-keys}, {@code delete-key}, {@code delete-pattern},
	 * {@code lazyfree}): {@code success}, {@code closed} (a scan closed before its end), {@code interrupted} (the
	 * thread was interrupted between batches) or {@code error}. The tools have no configured name: the name tag is
	 * {@code keys}; the pattern and the keys are never tags.
	 */
	KEYS_OPERATION("rediskit.keys.operation", "key tools", Keys.OPERATION);

	private final String observationName;

	private final String contextualName;

	private final @Nullable Keys detail;

	RedisKitObservation(String observationName, String contextualName, @Nullable Keys detail) {
		this.observationName = observationName;
		this.contextualName = contextualName;
		this.detail = detail;
	}

	@Override
	public String getName() {
		return this.observationName;
	}

	@Override
	public String getContextualName() {
		return this.contextualName;
	}

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return DefaultRedisKitObservationConvention.class;
	}

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return (this.detail != null) ? new KeyName[] { Keys.NAME, Keys.OUTCOME, this.detail }
				: new KeyName[] { Keys.NAME, Keys.OUTCOME };
	}

	/** @return the key of this observation's one detail tag, or {@code null} if it has none */
	public @Nullable Keys detail() {
		return this.detail;
	}

	/** The tags of redis-kit's observations, all of low cardinality. */
	public enum Keys implements KeyName {

		/** The configured name of the lock group, limiter, cache, queue or structure ({@code keys} for the key tools). */
		NAME("name"),

		/** How the observed step ended; the values are listed on each observation. */
		OUTCOME("outcome"),

		/** The member of the lock family ({@code lock}, {@code fair}, {@code semaphore}, ...). */
		KIND("kind"),

		/** The rate limiter's algorithm. */
		ALGORITHM("algorithm"),

		/** The cache tier that answered: {@code near}, {@code redis}, or {@code none} for a miss. */
		TIER("tier"),

		/** The operation of a structure's call ({@code add}, {@code check-in}, {@code nearby}, ...). */
		OPERATION("operation"),

		/** What sent a message: {@code caller} (a call of the queue), {@code recurring} (a recurring job's slot). */
		SOURCE("source");

		private final String key;

		Keys(String key) {
			this.key = key;
		}

		@Override
		public String asString() {
			return this.key;
		}

	}

}

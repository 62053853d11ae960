package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

import io.rediskit.lock.Lease;
import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A Bloom filter in front of a loader (a repository lookup, a remote call), against cache penetration: lookups
 * of ids that do not exist reaching the database.
 * <ol>
 * <li>An id a {@link BloomFilter#isComplete() complete} filter has never seen is absent: the loader is not
 * called. One round trip asks both ({@link BloomFilter#check(String)}).</li>
 * <li>An id with a null marker (a recent loader miss) is absent: the loader is not called.</li>
 * <li>Otherwise the caller takes the distributed lock of the id ({@code bloom-guard:<filter>:<id>}), so that
 * concurrent misses of one id, on every instance, call the loader once: the others find the marker it left.
 * A miss leaves a marker for {@link BloomGuardSpec#absentTtl()} plus jitter.</li>
 * </ol>
 * Seed the filter with every id there is, either by giving its registry a {@link BloomFilterSeed} (the filter is
 * then seeded in the background, and again by itself whenever a check finds it not complete) or by calling
 * {@link #seed(Iterable)} at startup; register every id that comes to exist later with {@link #add(String)}, before
 * it can be looked up, or the guard answers absent for it. Hits are not cached here: put the guard behind the
 * application's cache, on its miss path. Redis failures never hide data: a filter, marker or lock that cannot
 * be reached lets the loader run (logged once per interval), and so does a filter that is not complete: never
 * seeded, or lost in Redis (a restart without persistence, a {@code FLUSHDB}, a lost failover write, an eviction,
 * its ttl) and perhaps created anew since by an add, holding that add's ids only. Its "never seen" would hide every
 * other record; the loader runs for every id it has not seen, with a warning once per interval, until it is seeded.
 * <pre>{@code
 * BloomGuard guard = new BloomGuard(filters.get("users"), commands, keyNaming, locks, BloomGuardSpec.defaults());
 * guard.seed(repository.findAllIds());
 * Optional<User> user = guard.load(id, repository::findByIdOrNull);
 * }</pre>
 */
public final class BloomGuard {

	private static final Log logger = LogFactory.getLog(BloomGuard.class);

	private static final String AREA = "bloom-guard";

	private static final byte[] MARKER = { '1' };

	private static final byte[] PX = { 'P', 'X' };

	private final BloomFilter filter;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final @Nullable LockRegistry locks;

	private final BloomGuardSpec spec;

	private final ThrottledLog outages;

	private final ThrottledLog incomplete;

	/**
	 * @param filter the filter of the ids that exist
	 * @param commands runs the null-marker commands
	 * @param keyNaming names the markers' keys
	 * @param locks the locks that make concurrent misses load once; {@code null} to let each caller load
	 * @param spec the markers' TTL and the lock wait
	 */
	public BloomGuard(BloomFilter filter, CommandExecutor commands, KeyNaming keyNaming, @Nullable LockRegistry locks,
			BloomGuardSpec spec) {
		this.filter = Objects.requireNonNull(filter, "filter must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.locks = locks;
		this.spec = Objects.requireNonNull(spec, "spec must not be null");
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10),
				"Bloom guard of '" + filter.name() + "' cannot reach Redis; the loader runs");
		this.incomplete = new ThrottledLog(logger, Duration.ofSeconds(10), "Bloom guard of '" + filter.name()
				+ "' finds its filter not complete (never seeded, or lost in Redis and perhaps created anew by an add);"
				+ " the loader runs for every id the filter has not seen until it is seeded: give the Bloom filter"
				+ " registry a BloomFilterSeed for '" + filter.name() + "', or call seed(every id)");
	}

	/**
	 * Registers an id that now exists, and clears a null marker it may have.
	 * @param id the id
	 * @return whether the filter had not seen it
	 */
	public boolean add(String id) {
		boolean added = this.filter.add(id);
		this.commands.execute("DEL", ReturnType.INTEGER, markerKey(id));
		return added;
	}

	/**
	 * Registers ids that exist in one round trip, leaving null markers alone. It does not make the filter
	 * complete: seeding with every id there is does ({@link #seed(Iterable)}). Use {@link #add(String)} for an id
	 * created later.
	 * @param ids the ids
	 */
	public void addAll(Collection<String> ids) {
		this.filter.addAll(ids);
	}

	/**
	 * Seeds the filter with every id there is and marks it complete ({@link BloomFilter#seed(Iterable)}), leaving null
	 * markers alone: for startup, before lookups can have left markers, when the registry has no
	 * {@link BloomFilterSeed} for the filter.
	 * @param ids every id there is, iterated once
	 * @return whether the filter is complete; {@code false} if it was lost or created anew while seeded (seed again)
	 */
	public boolean seed(Iterable<String> ids) {
		return this.filter.seed(ids);
	}

	/**
	 * Loads an id, unless the filter or a null marker shows it absent.
	 * @param <T> what the loader returns
	 * @param id the id
	 * @param loader loads the id; {@code null} for absent
	 * @return the loaded value, or empty
	 */
	public <T> Optional<T> load(String id, Function<String, @Nullable T> loader) {
		Objects.requireNonNull(loader, "loader must not be null");
		byte[] marker = markerKey(id);
		if (!mightExist(id) || isMarkedAbsent(marker)) {
			return Optional.empty();
		}
		if (this.locks == null) {
			return loadAndMark(id, marker, loader);
		}
		RedisLock lock = this.locks.getLock(AREA, this.filter.name() + ":" + id);
		Optional<Lease> lease;
		try {
			lease = lock.tryAcquire(this.spec.lockWait(), null);
		}
		catch (LockNotAcquiredException ex) {
			// Only an interrupt ends tryAcquire this way; the caller sees it, the flag still set.
			throw ex;
		}
		catch (RuntimeException ex) {
			outage(ex);
			lease = Optional.empty();
		}
		try {
			// Whoever held the lock may have found the id missing meanwhile.
			if (isMarkedAbsent(marker)) {
				return Optional.empty();
			}
			return loadAndMark(id, marker, loader);
		}
		finally {
			lease.ifPresent(Lease::close);
		}
	}

	private <T> Optional<T> loadAndMark(String id, byte[] marker, Function<String, @Nullable T> loader) {
		T value = loader.apply(id);
		if (value == null) {
			long ttl = this.spec.absentTtl().toMillis();
			long jittered = ttl + (long) (ttl * this.spec.jitter() * ThreadLocalRandom.current().nextDouble());
			try {
				this.commands.execute("SET", ReturnType.STATUS, marker, MARKER, PX,
						Long.toString(Math.max(1, jittered)).getBytes(StandardCharsets.US_ASCII));
			}
			catch (RuntimeException ex) {
				outage(ex);
			}
		}
		return Optional.ofNullable(value);
	}

	private boolean mightExist(String id) {
		try {
			BloomAnswer answer = this.filter.check(id);
			if (answer == BloomAnswer.NOT_COMPLETE) {
				// "Never seen" from a filter that does not hold every id would hide the record: the loader runs.
				this.incomplete.warn(new IllegalStateException("Bloom filter '" + this.filter.name() + "' is not complete"));
			}
			return answer.mayExist();
		}
		catch (RuntimeException ex) {
			outage(ex);
			return true;
		}
	}

	private boolean isMarkedAbsent(byte[] marker) {
		try {
			Long exists = this.commands.execute("EXISTS", ReturnType.INTEGER, marker);
			return exists != null && exists == 1;
		}
		catch (RuntimeException ex) {
			outage(ex);
			return false;
		}
	}

	private void outage(RuntimeException failure) {
		if (!RedisFailures.isUnavailable(failure)) {
			throw failure;
		}
		this.outages.warn(failure);
	}

	private byte[] markerKey(String id) {
		Objects.requireNonNull(id, "id must not be null");
		// The filter name holds no ':' (see Names), so name and id cannot run into each other.
		return this.keyNaming.key(AREA, this.filter.name() + ":" + id).getBytes(StandardCharsets.UTF_8);
	}

}

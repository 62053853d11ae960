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
 * <li>An id the filter has never seen is absent: the loader is not called.</li>
 * <li>An id with a null marker (a recent loader miss) is absent: the loader is not called.</li>
 * <li>Otherwise the caller takes the distributed lock of the id ({@code bloom-guard:<filter>:<id>}), so that
 * concurrent misses of one id, on every instance, call the loader once: the others find the marker it left.
 * A miss leaves a marker for {@link BloomGuardSpec#absentTtl()} plus jitter.</li>
 * </ol>
 * Register every id that comes to exist with {@link #add(String)} (or the filter's own {@code add}), before it
 * can be looked up, or the guard answers absent for it. Hits are not cached here: put the guard behind the
 * application's cache, on its miss path. Redis failures never hide data: a filter, marker or lock that cannot
 * be reached lets the loader run (logged once per interval), and so does a filter missing from Redis (a restart
 * without persistence, a {@code FLUSHDB}, a lost failover write, an eviction, its ttl), which would otherwise answer
 * "never seen" for every id: a "never seen" answer costs one {@code EXISTS} of the filter's key more. A filter
 * nothing was added to yet has no key either, and guards nothing until its first id is added.
 * <pre>{@code
 * BloomGuard guard = new BloomGuard(filters.get("users"), commands, keyNaming, locks, BloomGuardSpec.defaults());
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

	private final ThrottledLog missing;

	private final byte[] filterKey;

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
		this.missing = new ThrottledLog(logger, Duration.ofSeconds(10), "Bloom guard of '" + filter.name()
				+ "' finds its filter missing in Redis; the loader runs for every id until its ids are added again");
		// Every mode keeps the filter under this key: the bits (and header) of shard 0, or a growing filter's record.
		this.filterKey = keyNaming.key("bloom", filter.name()).getBytes(StandardCharsets.UTF_8);
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
	 * Registers ids that exist in one round trip, leaving null markers alone: for a bulk load at startup,
	 * before lookups can have left markers. Use {@link #add(String)} for an id created later.
	 * @param ids the ids
	 */
	public void addAll(Collection<String> ids) {
		this.filter.addAll(ids);
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
			if (this.filter.mightContain(id)) {
				return true;
			}
			// A filter that is not in Redis reads as empty: lost to a restart without persistence, a FLUSHDB, a
			// failover that dropped its key, an eviction or its ttl, it would answer "never seen" for every id and
			// hide every record. Only a negative answer pays for this check, and the loader runs until the ids are
			// added again.
			Long exists = this.commands.execute("EXISTS", ReturnType.INTEGER, this.filterKey);
			if (exists != null && exists == 0) {
				String key = new String(this.filterKey, StandardCharsets.UTF_8);
				this.missing.warn(new IllegalStateException("no key " + key));
				return true;
			}
			return false;
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

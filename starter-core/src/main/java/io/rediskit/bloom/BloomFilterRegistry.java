package io.rediskit.bloom;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import io.rediskit.lock.LockRegistry;
import io.rediskit.support.Background;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Names;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link BloomFilter}s by name: those configured (in Spring Boot, under
 * {@code redis-kit.bloom.filters}) through {@link #get(String)}, and those built in code through
 * {@link #create(String, BloomFilterSpec)}. One handle exists per name, with one spec: {@code create} with the
 * spec a name already has returns its filter, and another spec for a configured or created name throws
 * {@link SpecConflictException} (see {@link NamedSpecs} for the rule). A changed configuration (a refresh) gives a
 * configured name a new handle on the next {@link #get(String)}.
 * <p>
 * A filter's sizing is stored with its bits in Redis; a handle whose spec differs from the stored sizing fails
 * every call with {@link BloomFilterSizingException} until the filter is deleted. Keys are
 * {@code <prefix>bloom:{<name>}}, and {@code <prefix>bloom:{<name>:<i>}} for the further shards of a filter
 * above 2<sup>32</sup> bits.
 * <p>
 * The {@link BloomMode mode} decides where bits live; in {@link BloomMode#AUTO} the server is asked once, on
 * the first call of a filter that could be native, with {@code COMMAND INFO}. A filter whose spec has a
 * {@link BloomGrowth growth} is a scalable filter of bitmap layers in any mode but {@link BloomMode#NATIVE}, which
 * refuses it: {@code <prefix>bloom:{<name>}} is then its record and {@code <prefix>bloom:{<name>}:layer:<i>} its
 * layers.
 * <p>
 * Completeness: each filter has a mark beside it, {@code <key>:complete}, that says it was {@link BloomFilter#seed
 * seeded} with every item there is and not lost or created anew since; only a complete filter's "never seen" is
 * trusted by {@link BloomFilter#check(String)}. A filter given a {@link #setSeed(BloomFilterSeed) seed} is seeded
 * again by itself when a check finds it not complete.
 */
public class BloomFilterRegistry {

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private final BloomMode mode;

	private final Listeners<BloomFilterListener> listeners;

	private volatile Observations observations = Observations.NOOP;

	private final BloomCapabilities capabilities;

	private final NamedSpecs<BloomFilterSpec, BloomFilter> filters;

	private volatile long maxShardBits = BloomFilterSpec.MAX_SHARD_BITS;

	private final Map<String, BloomSeeder> seeders = new ConcurrentHashMap<>();

	private volatile @Nullable LockRegistry locks;

	private volatile @Nullable Background background;

	/**
	 * A registry of bitmap or native filters ({@link BloomMode#AUTO}) created in code only.
	 * @param connectionFactory where filters run
	 * @param keyNaming names the Redis keys
	 * @param listener told of the items of every call
	 */
	public BloomFilterRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			BloomFilterListener listener) {
		this(ScriptExecutor.of(connectionFactory), CommandExecutor.of(connectionFactory), keyNaming, BloomMode.AUTO,
				List.of(listener), (name) -> null);
	}

	/**
	 * A registry that also serves configured filters.
	 * @param scripts runs the add script
	 * @param commands runs lookups and native commands
	 * @param keyNaming names the Redis keys
	 * @param mode where bits live
	 * @param listeners told of the items of every call, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}, so it must be cheap
	 */
	public BloomFilterRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming, BloomMode mode,
			List<? extends BloomFilterListener> listeners, ConfiguredSpecs<BloomFilterSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.mode = Objects.requireNonNull(mode, "mode must not be null");
		this.listeners = Listeners.of("bloom filter", listeners);
		this.capabilities = new BloomCapabilities(commands);
		this.filters = new NamedSpecs<>("Bloom filter", "redis-kit.bloom.filters", configuredSpecs, this::newFilter,
				(filter, spec) -> newFilter(filter.name(), spec));
	}

	/**
	 * Observes every call of the filters as {@link RedisKitObservation#BLOOM_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * Gives a filter the source of every item it must hold: the filter is then seeded from it in the background by
	 * {@link #seedAsync(String)}, and by itself whenever a {@link BloomFilter#check(String) check} finds it not
	 * complete (lost in Redis, or created anew by an add). One seed per filter; a later one replaces it.
	 * @param seed the seed, naming its filter
	 */
	public void setSeed(BloomFilterSeed seed) {
		Objects.requireNonNull(seed, "seed must not be null");
		this.seeders.put(Names.requireValid("Bloom filter", seed.filter()), new BloomSeeder(seed));
	}

	/**
	 * The locks that make one instance seed a filter when several find it not complete at once: under
	 * {@code bloom-seed:<filter>}, and only if it is still not complete once the lock is held.
	 * @param locks the application's lock registry; {@code null} (the default) lets each instance seed (the result is
	 * the same, the work repeated)
	 */
	public void setLocks(@Nullable LockRegistry locks) {
		this.locks = locks;
	}

	/**
	 * Where seedings run: they read the seed's source and add every item, so they may block.
	 * @param background the application's; by default threads of the registry's own, made on first use
	 */
	public void setBackground(Background background) {
		this.background = Objects.requireNonNull(background, "background must not be null");
	}

	/**
	 * @param name a filter's name
	 * @return whether the filter has a {@link BloomFilterSeed}
	 */
	public boolean hasSeed(String name) {
		return this.seeders.containsKey(name);
	}

	/**
	 * Seeds a filter from its {@link BloomFilterSeed} in the background, unless it is complete: the seeding in
	 * progress if one is, else a new one (under the lock when {@link #setLocks(LockRegistry) locks} are given).
	 * @param name a filter with a seed
	 * @return whether the filter is complete once the seeding ends; exceptionally if it failed (Redis, or the source)
	 * @throws IllegalArgumentException if the filter has no seed, or no filter has the name
	 */
	public CompletionStage<Boolean> seedAsync(String name) {
		BloomSeeder seeder = this.seeders.get(name);
		if (seeder == null) {
			throw new IllegalArgumentException("Bloom filter '" + name + "' has no BloomFilterSeed");
		}
		return seeder.request(get(name), this.locks, executor());
	}

	/** A check found a filter not complete: seed it if it has a seed. */
	private void incomplete(BloomFilter filter) {
		BloomSeeder seeder = this.seeders.get(filter.name());
		if (seeder != null) {
			seeder.request(filter, this.locks, executor());
		}
	}

	private Executor executor() {
		Background current = this.background;
		if (current == null) {
			synchronized (this.seeders) {
				current = this.background;
				if (current == null) {
					// Daemon threads made per seeding, none before: nothing for a registry without Boot to close.
					current = Background.standalone("bloom");
					this.background = current;
				}
			}
		}
		return current.executor();
	}

	/**
	 * The filter of a name; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #create(String, BloomFilterSpec)}
	 * @return the filter
	 * @throws IllegalArgumentException if no filter has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public BloomFilter get(String name) {
		return this.filters.get(name);
	}

	/**
	 * Creates the handle of a filter, or returns the one a name has if it has this spec (configured or created
	 * before). Nothing is written to Redis until the first add.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec the filter's sizing
	 * @return the filter
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 * @throws InvalidSpecException if the mode is {@link BloomMode#NATIVE} and the spec has a TTL or a growth
	 */
	public BloomFilter create(String name, BloomFilterSpec spec) {
		requireSupported(spec);
		return this.filters.create(name, spec);
	}

	/** @return the names of the filters used so far */
	public Set<String> names() {
		return this.filters.names();
	}

	/** @return the filters used so far */
	public Collection<BloomFilter> filters() {
		return List.copyOf(this.filters.handles());
	}

	/** @return the configured mode */
	public BloomMode mode() {
		return this.mode;
	}

	/**
	 * Asks the server whether it offers native {@code BF.*} filters (once; the answer is kept).
	 * @return whether it does
	 * @throws org.springframework.dao.DataAccessException if Redis cannot be reached
	 */
	public boolean nativeFiltersAvailable() {
		return Stages.join(this.capabilities.nativeFilters());
	}

	/**
	 * Asks the server, without waiting, whether it offers native {@code BF.*} filters, so that the first call
	 * of a filter need not; the answer is logged. An outage is ignored here and asked again on first use.
	 * @return the answer
	 */
	public CompletionStage<Boolean> detectNativeFiltersAsync() {
		return this.capabilities.nativeFilters();
	}

	private BloomFilter newFilter(String name, BloomFilterSpec spec) {
		requireSupported(spec);
		BloomGrowth growth = spec.growth();
		if (growth != null) {
			return new GrowingBloomFilter(name, spec, growth, this.scripts, this.commands, this.keyNaming, this.listeners,
					this::observations, this::incomplete);
		}
		return new RedisBloomFilter(name, spec, this.mode, this.maxShardBits, this.scripts, this.commands,
				this.keyNaming, this.capabilities, this.listeners, this::observations, this::incomplete);
	}

	/** A spec is checked before it is compared with a name's: a spec this mode cannot run is wrong in itself. */
	private void requireSupported(BloomFilterSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		if (this.mode == BloomMode.NATIVE && spec.ttl() != null) {
			throw new InvalidSpecException("ttl", "is not supported by native (BF.*) filters, which cannot be created"
					+ " with a TTL in one step; use mode auto or bitmap for filters with a ttl");
		}
		if (this.mode == BloomMode.NATIVE && spec.growth() != null) {
			throw new InvalidSpecException("growth", "is not supported in native mode: a growing filter's layers are"
					+ " bitmaps, sized by its growth factor and tightening ratio; use mode auto or bitmap for filters"
					+ " that grow");
		}
	}

	/** Splits filters into shards of at most this many bits: tests use small shards rather than gigabytes. */
	BloomFilterRegistry maxShardBits(long bits) {
		this.maxShardBits = bits;
		return this;
	}

}

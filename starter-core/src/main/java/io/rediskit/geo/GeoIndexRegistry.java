package io.rediskit.geo;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Hands out {@link GeoIndex}es by name: those configured (in Spring Boot, under
 * {@code redis-kit.geo.indexes}) through {@link #get(String)}, and those built in code through
 * {@link #create(String, GeoIndexSpec)}. One index exists per name; a new spec for a name gives a new handle
 * over the same keys.
 * <p>
 * A spec change that changes the layout (the sharding, or the precision of cells) does not move stored
 * members: put them again, or use a new index name. Keys are {@code <prefix>geo:{<name>}...} (see
 * {@link GeoSharding} for the layouts).
 */
public class GeoIndexRegistry {

	private static final Log logger = LogFactory.getLog(GeoIndexRegistry.class);

	private final ScriptExecutor scripts;

	private final KeyNaming keyNaming;

	private final Listeners<GeoListener> listeners;

	private final Function<String, @Nullable GeoIndexSpec> configuredSpecs;

	private final CommandExecutor commands;

	private final ConcurrentMap<String, RedisGeoIndex> indexes = new ConcurrentHashMap<>();

	/**
	 * A registry of indexes created in code only.
	 * @param scripts runs the indexes' scripts
	 * @param commands runs the plain {@code GEOSEARCH} of an unsharded index without expiry
	 * @param keyNaming names the Redis keys
	 */
	public GeoIndexRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming) {
		this(scripts, commands, keyNaming, List.of(), (name) -> null);
	}

	/**
	 * A registry that also serves configured indexes.
	 * @param scripts runs the indexes' scripts
	 * @param commands runs the plain {@code GEOSEARCH} of an unsharded index without expiry
	 * @param keyNaming names the Redis keys
	 * @param listeners told of every operation, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null}; asked on every {@link #get(String)},
	 * so it must be cheap
	 */
	public GeoIndexRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			List<? extends GeoListener> listeners, Function<String, @Nullable GeoIndexSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("geo", listeners);
		this.configuredSpecs = Objects.requireNonNull(configuredSpecs, "configuredSpecs must not be null");
	}

	/**
	 * The index of a name, with its configured spec.
	 * @param name a configured name, or one passed to {@link #create(String, GeoIndexSpec)}
	 * @return the index
	 * @throws IllegalArgumentException if no index has the name
	 */
	public GeoIndex get(String name) {
		Objects.requireNonNull(name, "name must not be null");
		GeoIndexSpec configured = this.configuredSpecs.apply(name);
		RedisGeoIndex index = this.indexes.get(name);
		if (configured != null && (index == null || !index.spec().equals(configured))) {
			return create(name, configured);
		}
		if (index == null) {
			throw new IllegalArgumentException("No geo index named '" + name + "': configure redis-kit.geo.indexes."
					+ name + " or create it in code first");
		}
		return index;
	}

	/**
	 * Creates an index, or replaces the handle of a name with one of a new spec.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec what it does
	 * @return the index
	 * @throws IllegalArgumentException if the name is not valid
	 */
	public GeoIndex create(String name, GeoIndexSpec spec) {
		Objects.requireNonNull(spec, "spec must not be null");
		Names.requireValid("Geo index", name);
		return this.indexes.compute(name, (key, existing) -> (existing != null && existing.spec().equals(spec))
				? existing : new RedisGeoIndex(new GeoIndexParts(key, spec, this.scripts, this.commands, this.keyNaming,
						this.listeners, new ThrottledLog(logger, Duration.ofSeconds(10),
								"Geo index '" + key + "' cannot reach Redis")), null));
	}

	/** @return the names of the indexes used so far */
	public Set<String> names() {
		return new TreeSet<>(this.indexes.keySet());
	}

}

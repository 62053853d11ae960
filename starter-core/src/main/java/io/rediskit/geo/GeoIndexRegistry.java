package io.rediskit.geo;

import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.SpecConflictException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Hands out {@link GeoIndex}es by name: those configured (in Spring Boot, under
 * {@code redis-kit.geo.indexes}) through {@link #get(String)}, and those built in code through
 * {@link #create(String, GeoIndexSpec)}. One index exists per name, with one spec: {@code create} with the spec
 * a name already has returns its index, and another spec for a configured or created name throws
 * {@link SpecConflictException} (see {@link NamedSpecs} for the rule), since an index of another layout would
 * not see the members of the first.
 * <p>
 * A changed configuration (a refresh) gives a configured name a new handle over the same keys on the next
 * {@link #get(String)}. A change of layout (the sharding, or the precision of cells) does not move stored
 * members: put them again, or use a new index name. Keys are {@code <prefix>geo:{<name>}...} (see
 * {@link GeoSharding} for the layouts).
 */
public class GeoIndexRegistry {

	private static final Log logger = LogFactory.getLog(GeoIndexRegistry.class);

	private final ScriptExecutor scripts;

	private final KeyNaming keyNaming;

	private final Listeners<GeoListener> listeners;

	private volatile Observations observations = Observations.NOOP;

	private final CommandExecutor commands;

	private final NamedSpecs<GeoIndexSpec, RedisGeoIndex> indexes;

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
	 * @param listeners told of the expired members removed, in order
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}, so it must be cheap
	 */
	public GeoIndexRegistry(ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
			List<? extends GeoListener> listeners, ConfiguredSpecs<GeoIndexSpec> configuredSpecs) {
		this.scripts = Objects.requireNonNull(scripts, "scripts must not be null");
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.listeners = Listeners.of("geo", listeners);
		this.indexes = new NamedSpecs<>("geo index", "redis-kit.geo.indexes", configuredSpecs, this::newIndex,
				(index, spec) -> newIndex(index.name(), spec));
	}

	/**
	 * Observes every operation of the indexes as {@link RedisKitObservation#GEO_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The index of a name, with its configured spec; a changed configuration gives a new handle.
	 * @param name a configured name, or one passed to {@link #create(String, GeoIndexSpec)}
	 * @return the index
	 * @throws IllegalArgumentException if no index has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public GeoIndex get(String name) {
		return this.indexes.get(name);
	}

	/**
	 * Creates an index, or returns the one a name has if it has this spec (configured or created before).
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec what it does
	 * @return the index
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec: two specs would
	 * put members where the other's searches never look
	 */
	public GeoIndex create(String name, GeoIndexSpec spec) {
		return this.indexes.create(name, spec);
	}

	/** @return the names of the indexes used so far */
	public Set<String> names() {
		return this.indexes.names();
	}

	private RedisGeoIndex newIndex(String name, GeoIndexSpec spec) {
		return new RedisGeoIndex(new GeoIndexParts(name, spec, this.scripts, this.commands, this.keyNaming,
				this.listeners, new ObservedCalls("Geo index", RedisKitObservation.GEO_OPERATION, name, this::observations,
						logger)), null);
	}

}

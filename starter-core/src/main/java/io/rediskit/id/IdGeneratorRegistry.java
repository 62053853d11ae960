package io.rediskit.id;

import java.util.Objects;
import java.util.Set;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.NamedSpecs;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.SpecConflictException;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Hands out {@link IdGenerator}s by name: configured ones (in Spring Boot, under {@code redis-kit.id.generators})
 * through {@link #get(String)}, others through {@link #create(String, IdGeneratorSpec)}. One generator (one current
 * block) exists per name in a registry, with one spec: {@code create} with the spec a name already has returns its
 * generator, and another spec throws {@link SpecConflictException} (see {@link NamedSpecs}). A changed
 * configuration gives a new handle, which starts a new block (the rest of the old one is a gap).
 */
public class IdGeneratorRegistry {

	private final CommandExecutor commands;

	private final KeyNaming keyNaming;

	private volatile Observations observations = Observations.NOOP;

	private final NamedSpecs<IdGeneratorSpec, RedisIdGenerator> generators;

	/**
	 * A registry of generators created in code only.
	 * @param connectionFactory where the counters are
	 * @param keyNaming names the Redis keys
	 */
	public IdGeneratorRegistry(RedisConnectionFactory connectionFactory, KeyNaming keyNaming) {
		this(CommandExecutor.of(connectionFactory), keyNaming, (name) -> null);
	}

	/**
	 * A registry that also serves configured generators.
	 * @param commands runs {@code INCRBY}
	 * @param keyNaming names the Redis keys
	 * @param configuredSpecs the configured spec of a name, or {@code null} (and the configured names, the closest of
	 * which an unknown name's error suggests); asked on every {@link #get(String)}
	 */
	public IdGeneratorRegistry(CommandExecutor commands, KeyNaming keyNaming,
			ConfiguredSpecs<IdGeneratorSpec> configuredSpecs) {
		this.commands = Objects.requireNonNull(commands, "commands must not be null");
		this.keyNaming = Objects.requireNonNull(keyNaming, "keyNaming must not be null");
		this.generators = new NamedSpecs<>("id generator", "redis-kit.id.generators", configuredSpecs,
				this::newGenerator, (generator, spec) -> newGenerator(generator.name(), spec));
	}

	/**
	 * Observes every block the generators reserve as {@link RedisKitObservation#ID_OPERATION}.
	 * @param observations the application's, {@link Observations#NOOP} (the default) for none
	 */
	public void setObservations(Observations observations) {
		this.observations = Objects.requireNonNull(observations, "observations must not be null");
	}

	private Observations observations() {
		return this.observations;
	}

	/**
	 * The generator of a name.
	 * @param name a configured name, or one passed to {@link #create(String, IdGeneratorSpec)}
	 * @return the generator
	 * @throws IllegalArgumentException if no generator has the name
	 * @throws SpecConflictException if the name was created in code with another spec than it is configured with
	 * now
	 */
	public IdGenerator get(String name) {
		return this.generators.get(name);
	}

	/**
	 * Creates a generator, or returns the one a name has if it has this spec.
	 * @param name letters, digits, {@code _} and {@code -}, at most 64 characters
	 * @param spec its block size
	 * @return the generator
	 * @throws IllegalArgumentException if the name is not valid
	 * @throws SpecConflictException if the name is configured, or was created, with another spec
	 */
	public IdGenerator create(String name, IdGeneratorSpec spec) {
		return this.generators.create(name, spec);
	}

	/** @return the names of the generators used so far */
	public Set<String> names() {
		return this.generators.names();
	}

	private RedisIdGenerator newGenerator(String name, IdGeneratorSpec spec) {
		return new RedisIdGenerator(name, spec, this.commands, this.keyNaming, this::observations);
	}

}

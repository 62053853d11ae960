package io.rediskit.autoconfigure.id;

import java.util.List;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.id.IdGenerator;
import io.rediskit.id.IdGeneratorRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitid}: every configured or used id generator with its block size and how far its
 * counter in Redis has gone ({@code GET /actuator/rediskitid}; {@link IdGenerator#reserved()}, one {@code GET} each,
 * which reserves nothing). The web console reads the same descriptors.
 */
@Endpoint(id = "rediskitid")
public class RedisIdEndpoint {

	private final IdGeneratorRegistry registry;

	private final IdProperties properties;

	/**
	 * @param registry the generators
	 * @param properties the configured generators
	 */
	public RedisIdEndpoint(IdGeneratorRegistry registry, IdProperties properties) {
		this.registry = registry;
		this.properties = properties;
	}

	/** @return the configured generators and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getGenerators());
	}

	/** @return every generator, by name */
	@ReadOperation
	public GeneratorsDescriptor generators() {
		return new GeneratorsDescriptor(names().stream().map(this::describe).toList());
	}

	private GeneratorDescriptor describe(String name) {
		try {
			IdGenerator generator = this.registry.get(name);
			return new GeneratorDescriptor(name, generator.spec().blockSize(), generator.reserved(), null);
		}
		catch (RuntimeException ex) {
			return new GeneratorDescriptor(name, null, null, String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * The endpoint's response.
	 * @param generators each generator, by name
	 */
	public record GeneratorsDescriptor(List<GeneratorDescriptor> generators) {
	}

	/**
	 * One id generator.
	 * @param name its name
	 * @param blockSize how many ids one round trip reserves per instance
	 * @param reserved the last id reserved by any instance, {@code 0} when none was: every id handed out is at most
	 * this
	 * @param error why it could not be read
	 */
	public record GeneratorDescriptor(String name, @Nullable Integer blockSize, @Nullable Long reserved,
			@Nullable String error) {
	}

}

package io.rediskit.autoconfigure.id;

import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.autoconfigure.support.NamedEntry;
import io.rediskit.id.IdGeneratorSpec;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.Names;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Id generator settings, under {@code redis-kit.id}:
 *
 * <pre>{@code
 * redis-kit:
 *   id:
 *     generators:
 *       orders:
 *         block-size: 1000
 * }</pre>
 *
 * Validated when bound by the rules of {@link IdGeneratorSpec} and {@link Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.id", ignoreUnknownFields = false)
public class IdProperties implements Validator {

	private static final String PREFIX = "redis-kit.id.";

	/**
	 * Whether to auto-configure the id generators.
	 */
	private boolean enabled = true;

	/**
	 * Id generators by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Generator> generators = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, Generator> getGenerators() {
		return this.generators;
	}

	public void setGenerators(Map<String, Generator> generators) {
		this.generators = generators;
	}

	@Override
	public boolean supports(Class<?> type) {
		return Generator.class.isAssignableFrom(type);
	}

	@Override
	public void validate(Object target, Errors errors) {
		Generator generator = (Generator) target;
		String property = NamedEntry.property(errors, PREFIX + "generators.", "id generator");
		if (property == null) {
			return;
		}
		NamedEntry.checkSpec(errors, property, generator::toSpec);
	}

	/**
	 * One id generator.
	 */
	public static class Generator {

		/**
		 * How many ids one round trip reserves per instance, from 1 to 1000000; the rest of a block is a gap when
		 * the instance stops.
		 */
		private int blockSize = IdGeneratorSpec.DEFAULT_BLOCK_SIZE;

		public int getBlockSize() {
			return this.blockSize;
		}

		public void setBlockSize(int blockSize) {
			this.blockSize = blockSize;
		}

		/**
		 * @return the core spec these settings describe, built anew on each call
		 * @throws InvalidSpecException if a value is out of range
		 */
		public IdGeneratorSpec toSpec() {
			return new IdGeneratorSpec(this.blockSize);
		}

	}

}

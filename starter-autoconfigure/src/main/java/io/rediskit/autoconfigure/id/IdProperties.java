package io.rediskit.autoconfigure.id;

import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.id.IdGeneratorSpec;

import org.springframework.boot.context.properties.ConfigurationProperties;

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
 * Checked when the registry is built, by the rules of {@link IdGeneratorSpec} and {@link io.rediskit.support.Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.id", ignoreUnknownFields = false)
public class IdProperties {

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

	}

}

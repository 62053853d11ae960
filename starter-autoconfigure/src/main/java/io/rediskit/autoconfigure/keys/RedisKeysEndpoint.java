package io.rediskit.autoconfigure.keys;

import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.BigKeyReport;
import io.rediskit.keys.KeyTools;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitkeys}: a big-key report of the key space, read-only (SCAN, TYPE, MEMORY USAGE,
 * PTTL, OBJECT ENCODING and length commands, paced by {@code redis-kit.keys.report.keys-per-second}). Off by
 * default, as a report of a large key space takes a while and names keys: turn it on with
 * {@code management.endpoint.rediskitkeys.access=read-only} and expose it with
 * {@code management.endpoints.web.exposure.include=rediskitkeys}.
 */
@Endpoint(id = "rediskitkeys", defaultAccess = Access.NONE)
public class RedisKeysEndpoint {

	private final KeyTools keyTools;

	private final BigKeyOptions options;

	/**
	 * @param keyTools runs the report
	 * @param options what the report covers and how fast it reads ({@code redis-kit.keys.report})
	 */
	public RedisKeysEndpoint(KeyTools keyTools, BigKeyOptions options) {
		this.keyTools = keyTools;
		this.options = options;
	}

	/** @return the report */
	@ReadOperation
	public BigKeyReport report() {
		return this.keyTools.bigKeys(this.options);
	}

}

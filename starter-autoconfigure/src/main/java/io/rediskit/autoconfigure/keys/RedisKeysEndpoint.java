package io.rediskit.autoconfigure.keys;

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

	private final KeysProperties.Report settings;

	/**
	 * @param keyTools runs the report
	 * @param settings what the report covers
	 */
	public RedisKeysEndpoint(KeyTools keyTools, KeysProperties.Report settings) {
		this.keyTools = keyTools;
		this.settings = settings;
	}

	/** @return the report */
	@ReadOperation
	public BigKeyReport report() {
		return this.keyTools.bigKeys(this.settings.toOptions());
	}

}

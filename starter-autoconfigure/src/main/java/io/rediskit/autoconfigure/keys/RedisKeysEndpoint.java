package io.rediskit.autoconfigure.keys;

import java.util.List;
import java.util.Map;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.BigKeyReport;
import io.rediskit.keys.KeyInfo;
import io.rediskit.keys.KeyTools;
import io.rediskit.keys.KeyTotals;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code rediskitkeys}: a big-key report of the key space, read-only (SCAN, TYPE, MEMORY USAGE,
 * PTTL, OBJECT ENCODING and length commands, paced by {@code redis-kit.keys.report.keys-per-second}). Off by
 * default, as a report of a large key space takes a while and names keys: turn it on with
 * {@code management.endpoint.rediskitkeys.access=read-only} and expose it with
 * {@code management.endpoints.web.exposure.include=rediskitkeys}.
 * <p>
 * Key names can carry the application's data (an order id in a lock's key, a user in a cache key), which the
 * endpoints that return values hide under {@code show-values} ({@link io.rediskit.autoconfigure.support.ShownValues});
 * this one names keys all the same, since turning it on is the opt-in and a report without names would not say which
 * key to fix. It never reads a value.
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
	public ReportDescriptor report() {
		return ReportDescriptor.of(this.keyTools.bigKeys(this.options));
	}

	/**
	 * A big-key report as the endpoint and the console show it: the {@link BigKeyReport}, its time taken as text
	 * ({@link Durations#format}), as every duration of a redis-kit endpoint.
	 * @param keysScanned how many keys were looked at
	 * @param largestByMemory the keys with the largest {@code MEMORY USAGE}, largest first
	 * @param largestByElements per type, the keys with the most elements, largest first
	 * @param totalsByType totals per type
	 * @param totalsByPrefix totals per prefix
	 * @param elapsed how long the report took ({@code 1500ms})
	 */
	public record ReportDescriptor(long keysScanned, List<KeyInfo> largestByMemory,
			Map<String, List<KeyInfo>> largestByElements, Map<String, KeyTotals> totalsByType,
			Map<String, KeyTotals> totalsByPrefix, String elapsed) {

		/**
		 * @param report a big-key report
		 * @return its descriptor
		 */
		public static ReportDescriptor of(BigKeyReport report) {
			return new ReportDescriptor(report.keysScanned(), report.largestByMemory(), report.largestByElements(),
					report.totalsByType(), report.totalsByPrefix(), Durations.format(report.elapsed()));
		}

	}

}

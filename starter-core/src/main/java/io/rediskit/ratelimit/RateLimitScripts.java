package io.rediskit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;


/**
 * The script of each algorithm, the arguments it takes and the reading of its reply; the limiter runs them
 * through the {@link io.rediskit.support.ScriptExecutor}. Every script returns
 * {@code {flag, limit, remaining, retry-after µs, reset-after µs, server time µs}}; only GCRA's flag means
 * "limited", as in redis-cell. Each algorithm also has a read-only {@code <algorithm>_peek.lua} that answers
 * {@code {limit, remaining, retry-after µs, reset-after µs, server time µs}} for one permit without writing.
 */
final class RateLimitScripts {

	private static final Map<RateLimitAlgorithm, LuaScript> SCRIPTS = new EnumMap<>(RateLimitAlgorithm.class);

	private static final Map<RateLimitAlgorithm, LuaScript> PEEKS = new EnumMap<>(RateLimitAlgorithm.class);

	static {
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			String path = "META-INF/redis-kit/scripts/ratelimit/" + algorithm.keyPart().replace('-', '_');
			SCRIPTS.put(algorithm, LuaScript.fromClasspath(path + ".lua"));
			PEEKS.put(algorithm, LuaScript.fromClasspath(path + "_peek.lua"));
		}
	}

	private static final byte[] SERVER_TIME = new byte[0];

	private static final byte[] ONE = number(1);

	private RateLimitScripts() {
	}

	static LuaScript script(RateLimitAlgorithm algorithm) {
		return SCRIPTS.get(algorithm);
	}

	/**
	 * The keys and arguments of one decision.
	 * @param prepared the spec in force, with its numbers encoded
	 * @param key the Redis key
	 * @param permits permits asked for
	 * @param member for the sliding log, a prefix unique to this call
	 * @param pinnedNowMicros time to decide at, for tests; {@code null} for the server's clock
	 * @return the one key, then the arguments
	 */
	static byte[][] keysAndArgs(Prepared prepared, byte[] key, int permits, @Nullable String member,
			@Nullable Long pinnedNowMicros) {
		byte[] now = (pinnedNowMicros != null) ? number(pinnedNowMicros) : SERVER_TIME;
		byte[] asked = (permits == 1) ? ONE : number(permits);
		return switch (prepared.spec().algorithm()) {
			case SLIDING_LOG -> new byte[][] { key, prepared.limit(), prepared.period(), asked, utf8(member), now };
			case SLIDING_WINDOW, FIXED_WINDOW -> new byte[][] { key, prepared.limit(), prepared.period(), asked, now };
			case TOKEN_BUCKET, GCRA -> new byte[][] { key, prepared.burst(), prepared.limit(), prepared.period(), asked,
					now };
		};
	}

	/** @return the read-only script that peeks at a key of the algorithm */
	static LuaScript peekScript(RateLimitAlgorithm algorithm) {
		return PEEKS.get(algorithm);
	}

	/**
	 * The keys and arguments of a peek: those of a decision without the permits and the sliding log's member.
	 * @param prepared the spec in force, with its numbers encoded
	 * @param key the Redis key
	 * @param pinnedNowMicros time to read at, for tests; {@code null} for the server's clock
	 * @return the one key, then the arguments
	 */
	static byte[][] peekKeysAndArgs(Prepared prepared, byte[] key, @Nullable Long pinnedNowMicros) {
		byte[] now = (pinnedNowMicros != null) ? number(pinnedNowMicros) : SERVER_TIME;
		return switch (prepared.spec().algorithm()) {
			case SLIDING_LOG, SLIDING_WINDOW, FIXED_WINDOW -> new byte[][] { key, prepared.limit(), prepared.period(),
					now };
			case TOKEN_BUCKET, GCRA -> new byte[][] { key, prepared.burst(), prepared.limit(), prepared.period(), now };
		};
	}

	/**
	 * Reads the reply of a peek.
	 * @param reply the script's reply
	 * @param spec the spec the script ran with
	 * @return the key's state
	 */
	static RateLimitState readPeek(@Nullable List<Object> reply, RateLimitSpec spec) {
		if (reply == null || reply.size() != 5) {
			throw new IllegalStateException("Unexpected reply from the " + spec.algorithm() + " peek script: " + reply);
		}
		return new RateLimitState((Long) reply.get(0), (Long) reply.get(1), micros((Long) reply.get(2)),
				micros((Long) reply.get(3)));
	}

	/**
	 * Reads the reply of a decision.
	 * @param reply the script's reply
	 * @param spec the spec the script ran with
	 * @return the decision, the server time it was made at and the spec
	 */
	static Evaluation read(@Nullable List<Object> reply, RateLimitSpec spec) {
		if (reply == null || reply.size() != 6) {
			throw new IllegalStateException("Unexpected reply from the " + spec.algorithm() + " script: " + reply);
		}
		long flag = (Long) reply.get(0);
		boolean allowed = (spec.algorithm() == RateLimitAlgorithm.GCRA) ? flag == 0 : flag == 1;
		long retryMicros = (Long) reply.get(3);
		Duration retryAfter = allowed ? Duration.ZERO
				// -1 means never; the caller checked the permits against this spec's capacity, so it cannot come.
				: (retryMicros < 0) ? spec.period() : micros(retryMicros);
		RateLimitDecision decision = new RateLimitDecision(
				allowed ? RateLimitDecision.Outcome.ALLOWED : RateLimitDecision.Outcome.REJECTED, (Long) reply.get(1),
				(Long) reply.get(2), retryAfter, micros((Long) reply.get(4)));
		return new Evaluation(decision, (Long) reply.get(5), spec);
	}

	private static Duration micros(long micros) {
		return Duration.ofNanos(Math.max(0, micros) * 1000);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(@Nullable String value) {
		return (value != null) ? value.getBytes(StandardCharsets.UTF_8) : SERVER_TIME;
	}

	/**
	 * A spec with the numbers its script takes, encoded once when the spec is applied rather than on every call.
	 * @param spec the spec
	 * @param limit its limit
	 * @param period its period in microseconds
	 * @param burst for the token bucket its capacity; for GCRA redis-cell's max_burst, which counts the permits
	 * beyond the first, so a burst of n is max_burst n - 1
	 */
	record Prepared(RateLimitSpec spec, byte[] limit, byte[] period, byte[] burst) {

		static Prepared of(RateLimitSpec spec) {
			long burst = (spec.algorithm() == RateLimitAlgorithm.GCRA) ? spec.capacity() - 1 : spec.capacity();
			return new Prepared(spec, number(spec.limit()), number(spec.periodMicros()), number(burst));
		}

	}

	/**
	 * A decision with the server time it was made at and the spec it applied.
	 * @param decision the decision
	 * @param serverMicros the server's clock, in microseconds since the epoch; -1 for the failure policy's
	 * @param spec the spec the decision applied
	 */
	record Evaluation(RateLimitDecision decision, long serverMicros, RateLimitSpec spec) {
	}

}

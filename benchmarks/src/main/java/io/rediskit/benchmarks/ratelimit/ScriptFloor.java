package io.rediskit.benchmarks.ratelimit;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floor of a rate limiter: redis-kit's own script of an algorithm, read from the class path
 * where the starter keeps it, run by a bare Lettuce {@code EVALSHA} with the key and arguments redis-kit sends
 * for a {@code tryAcquire(key)} of one permit, on one connection all threads share. What redis-kit adds on
 * top (the spec, the key naming, reading the reply into a decision, the listener, its executor) is what a
 * limiter's figure loses against this one; the script's own work in Redis is in both.
 * <p>
 * The arguments mirror {@code RateLimitScripts.keysAndArgs} in the starter, which the benchmark cannot call
 * (it is package-private): change both together. Keys are named as redis-kit names them,
 * {@code rk:ratelimit:<algorithm>:{<limiter>:<key>}}, under limiter names of their own, so the floor never
 * touches a key a limiter uses. The sliding log gets a member prefix unique to each call, as redis-kit
 * gives it. Scripts are loaded with {@code SCRIPT LOAD} before the first call, so no call pays for a
 * {@code NOSCRIPT}.
 */
final class ScriptFloor {

	private static final String SCRIPTS = "META-INF/redis-kit/scripts/ratelimit/";

	// Empty: decide on the server's TIME, as redis-kit does outside tests.
	private static final byte[] SERVER_TIME = new byte[0];

	private static final byte[] ONE_PERMIT = ascii(1);

	// Shaped like redis-kit's members: a random part per JVM, a counter per call.
	private static final String MEMBER_PREFIX = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36)
			+ ".";

	private final AtomicLong memberSequence = new AtomicLong();

	private final RedisCommands<byte[], byte[]> sync;

	private final RedisAsyncCommands<byte[], byte[]> async;

	private final KeyNaming keyNaming = KeyNaming.defaults();

	/**
	 * Creates the floor on one connection.
	 * @param connection the connection every call of every thread goes through; the caller closes it
	 */
	ScriptFloor(StatefulRedisConnection<byte[], byte[]> connection) {
		this.sync = connection.sync();
		this.async = connection.async();
	}

	/**
	 * Loads the algorithm's script and clears the keys.
	 * @param algorithm whose script to run
	 * @param limiter the limiter name the keys are named after; not one a redis-kit limiter of the run uses
	 * @param limit permits per second per key
	 * @param keys how many keys
	 * @return the floor's "limiter", sync and async
	 */
	Limiter create(RateLimitAlgorithm algorithm, String limiter, long limit, int keys) {
		String keyPart = algorithm.name().toLowerCase(Locale.ROOT).replace('_', '-');
		LuaScript script = LuaScript.fromClasspath(SCRIPTS + keyPart.replace('-', '_') + ".lua");
		String loaded = this.sync.scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
		if (!script.sha1().equals(loaded)) {
			throw new IllegalStateException("SCRIPT LOAD of " + script + " returned SHA-1 " + loaded);
		}
		byte[][] redisKeys = new byte[keys][];
		for (int i = 0; i < keys; i++) {
			redisKeys[i] = this.keyNaming.key("ratelimit:" + keyPart, limiter + ":k" + i)
				.getBytes(StandardCharsets.UTF_8);
			this.sync.del(redisKeys[i]);
		}
		return new Limiter(algorithm, script.sha1(), redisKeys, RateLimitSpec.of(algorithm, limit,
				RateLimitBenchmark.PERIOD));
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/** One algorithm's script over a set of keys. */
	final class Limiter implements KeyedLimiter, AsyncKeyedLimiter {

		private final RateLimitAlgorithm algorithm;

		private final String sha1;

		private final byte[][] keys;

		private final byte[] limit;

		private final byte[] period;

		private final byte[] capacity;

		private final byte[] maxBurst;

		private Limiter(RateLimitAlgorithm algorithm, String sha1, byte[][] keys, RateLimitSpec spec) {
			this.algorithm = algorithm;
			this.sha1 = sha1;
			this.keys = keys;
			this.limit = ascii(spec.limit());
			this.period = ascii(Math.max(1, spec.period().toNanos() / 1000));
			this.capacity = ascii(spec.capacity());
			// redis-cell's max_burst, as redis-kit sends it: the permits beyond the first.
			this.maxBurst = ascii(spec.capacity() - 1);
		}

		@Override
		public boolean tryAcquire(int key) {
			return allowed(ScriptFloor.this.sync.evalsha(this.sha1, ScriptOutputType.MULTI, keys(key), args()));
		}

		@Override
		public CompletionStage<Boolean> tryAcquireAsync(int key) {
			return ScriptFloor.this.async.<List<Object>>evalsha(this.sha1, ScriptOutputType.MULTI, keys(key), args())
				.thenApply(this::allowed);
		}

		private byte[][] keys(int key) {
			return new byte[][] { this.keys[key] };
		}

		/** The arguments of {@code RateLimitScripts.keysAndArgs} for one permit on the server's clock. */
		private byte[][] args() {
			return switch (this.algorithm) {
				case SLIDING_LOG -> new byte[][] { this.limit, this.period, ONE_PERMIT, member(), SERVER_TIME };
				case SLIDING_WINDOW, FIXED_WINDOW -> new byte[][] { this.limit, this.period, ONE_PERMIT, SERVER_TIME };
				case TOKEN_BUCKET -> new byte[][] { this.capacity, this.limit, this.period, ONE_PERMIT, SERVER_TIME };
				case GCRA -> new byte[][] { this.maxBurst, this.limit, this.period, ONE_PERMIT, SERVER_TIME };
			};
		}

		private byte[] member() {
			return (MEMBER_PREFIX + Long.toString(ScriptFloor.this.memberSequence.incrementAndGet(), 36) + ".")
				.getBytes(StandardCharsets.UTF_8);
		}

		/** Every script answers {@code {flag, ...}}; only GCRA's flag means "limited". */
		private boolean allowed(List<Object> reply) {
			long flag = (Long) reply.get(0);
			return (this.algorithm == RateLimitAlgorithm.GCRA) ? flag == 0 : flag == 1;
		}

	}

}

package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Runs scripts on a connection borrowed from the factory per call: the path for factories without a shared
 * native Lettuce connection (Jedis, or Lettuce with {@code shareNativeConnection=false}).
 */
final class ConnectionScriptExecutor implements ScriptExecutor {

	private final RedisConnectionFactory connectionFactory;

	ConnectionScriptExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public boolean isNative() {
		return false;
	}

	@Override
	public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			try {
				return connection.scriptingCommands().evalSha(script.sha1(), returnType, numKeys, keysAndArgs);
			}
			catch (RuntimeException ex) {
				if (!RedisFailures.isNoScript(ex)) {
					throw ex;
				}
				// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
				return connection.scriptingCommands().eval(script.body(), returnType, numKeys, keysAndArgs);
			}
		}
	}

	/**
	 * Runs the script and {@code WAIT} on one borrowed connection, on the calling thread. Not on Redis Cluster,
	 * where a borrowed connection does not pin the node the script ran on.
	 */
	@Override
	public <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
			ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection) {
				throw new InvalidDataAccessApiUsageException("Waiting for replicas on Redis Cluster needs a "
						+ "LettuceConnectionFactory that shares its native connection (the default)");
			}
			T reply;
			try {
				reply = connection.scriptingCommands().evalSha(script.sha1(), returnType, numKeys, keysAndArgs);
			}
			catch (RuntimeException ex) {
				if (!RedisFailures.isNoScript(ex)) {
					throw ex;
				}
				reply = connection.scriptingCommands().eval(script.body(), returnType, numKeys, keysAndArgs);
			}
			Object acknowledged = connection.execute("WAIT", number(wait.replicas()), number(wait.timeout().toMillis()));
			return CompletableFuture.completedFuture(
					new ReplicaWait.Acknowledged<>(reply, (acknowledged instanceof Long count) ? count : 0L));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/** Runs on the calling thread: this path has no driver to wait on without blocking. */
	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs) {
		try {
			return CompletableFuture.completedFuture(execute(script, returnType, numKeys, keysAndArgs));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}

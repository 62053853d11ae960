package io.rediskit.support;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs the Lua scripts of every primitive: one {@code EVALSHA} per call, the body sent with {@code EVAL} once
 * only when the server answers {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}), never a
 * second application of one call.
 * <p>
 * {@link #of(RedisConnectionFactory)} picks the fast path where it can: on a {@link LettuceConnectionFactory}
 * that shares its native connection (the default), scripts run on that one connection, standalone, Sentinel
 * or Cluster (routed by the slot of the first key), with no connection wrapper per call, and
 * {@link #executeAsync} never blocks the calling thread. On any other factory (Jedis, or Lettuce with
 * {@code shareNativeConnection=false}) each call borrows a connection from the factory, and
 * {@code executeAsync} runs the call on the calling thread and returns a completed stage: correct, slower.
 * <p>
 * Failures are Spring's {@code DataAccessException}s, translated as Spring Data Redis translates them
 * ({@code QueryTimeoutException} when the command timeout elapses, {@code RedisConnectionFailureException}
 * when Redis cannot be reached); {@link RedisFailures} tells an outage from a command error. The async variant
 * completes exceptionally with the same exceptions.
 */
public interface ScriptExecutor {

	/**
	 * Runs a script and waits for its reply, at most the connection's command timeout.
	 * @param <T> the reply type: {@code Long} for {@link ReturnType#INTEGER}, {@code List<Object>} for
	 * {@link ReturnType#MULTI} (integers as {@code Long}, strings as {@code byte[]})
	 * @param script the script
	 * @param returnType how to read the reply
	 * @param numKeys how many of {@code keysAndArgs} are keys
	 * @param keysAndArgs the keys, then the arguments
	 * @return the reply
	 * @throws org.springframework.dao.DataAccessException if Redis fails or cannot be reached
	 */
	<T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs);

	/**
	 * Runs a script without waiting for its reply.
	 * @param <T> the reply type, as for {@link #execute}
	 * @param script the script
	 * @param returnType how to read the reply
	 * @param numKeys how many of {@code keysAndArgs} are keys
	 * @param keysAndArgs the keys, then the arguments
	 * @return the reply, completed on the driver's thread; exceptionally with a
	 * {@code DataAccessException} if Redis fails, cannot be reached or does not answer within the command
	 * timeout
	 */
	<T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs);

	/**
	 * Runs a script, then {@code WAIT} for replicas on the same connection, so that the wait covers the
	 * script's writes: pipelined after the script on the shared connection (standalone, Sentinel), or both sent
	 * to the master of the first key's slot (Cluster, where a redirect is followed once). {@code WAIT} cannot run
	 * inside a script. The caller decides what a shortfall means ({@link ReplicaWait#onShortfall()}).
	 * @param <T> the reply type, as for {@link #execute}
	 * @param script the script
	 * @param returnType how to read the reply
	 * @param wait how many replicas to wait for, and how long; must be {@link ReplicaWait#enabled() enabled}
	 * @param numKeys how many of {@code keysAndArgs} are keys, at least one
	 * @param keysAndArgs the keys, then the arguments
	 * @return the reply and the number of replicas that acknowledged, completed exceptionally as
	 * {@link #executeAsync} is
	 */
	<T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
			ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs);

	/**
	 * The executor for a connection factory: the shared native Lettuce connection where the factory has one,
	 * else a connection borrowed per call.
	 * @param connectionFactory the application's connection factory
	 * @return the executor; it opens nothing until its first call
	 */
	static ScriptExecutor of(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()) {
			return new LettuceScriptExecutor(lettuce);
		}
		return new ConnectionScriptExecutor(connectionFactory);
	}

	/**
	 * This executor without a {@link RedisAvailability} gate in front, for a clean-up nobody waits for (undoing a
	 * lock attempt whose outcome is unknown): sent even while the gate refuses calls, it reaches Redis right
	 * behind the call it undoes, whenever Redis answers again.
	 * @return the executor behind the gate; an executor without a gate returns itself
	 */
	default ScriptExecutor ungated() {
		return this;
	}

	/**
	 * Whether this executor uses the fast path of {@link #of(RedisConnectionFactory)}.
	 * @return {@code true} on a shared native Lettuce connection
	 */
	boolean isNative();

}

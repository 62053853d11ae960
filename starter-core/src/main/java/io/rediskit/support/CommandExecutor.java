package io.rediskit.support;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs the plain commands of every primitive (those an operation needs where it is one command, not a script,
 * such as {@code BITFIELD}, {@code PFADD} or a module's {@code BF.MADD}): one round trip per call, on the same
 * connection as {@link ScriptExecutor}.
 * <p>
 * A command is its name, the key it is routed by, and its further arguments in order. On Redis Cluster it goes
 * to the master of the key's slot; further keys among the arguments (the sources of {@code PFMERGE}) must share
 * that slot, which {@link KeyNaming}'s hash tags arrange.
 * <p>
 * {@link #of(RedisConnectionFactory)} picks the same paths as {@link ScriptExecutor#of}: on a
 * {@link LettuceConnectionFactory} that shares its native connection (the default) commands run on that one
 * connection, standalone, Sentinel or Cluster, and {@link #executeAsync} never blocks; on any other factory each
 * call borrows a connection and {@code executeAsync} completes on the calling thread. Failures are Spring's
 * {@code DataAccessException}s, told apart by {@link RedisFailures}.
 * <pre>{@code
 * List<Object> bits = commands.execute("BITFIELD_RO", ReturnType.MULTI, key, GET, U1, offset);
 * }</pre>
 */
public interface CommandExecutor {

	/**
	 * Runs a command and waits for its reply, at most the connection's command timeout.
	 * @param <T> the reply type: {@code Long} for {@link ReturnType#INTEGER}, {@code List<Object>} for
	 * {@link ReturnType#MULTI} (integers as {@code Long}, strings as {@code byte[]}, nil as {@code null}, nested
	 * arrays as lists), {@code byte[]} for {@link ReturnType#VALUE}, {@code String} for {@link ReturnType#STATUS}
	 * @param command the command's name, such as {@code BITFIELD} or {@code BF.MADD}
	 * @param returnType how to read the reply
	 * @param key the key the command is routed by, its first argument
	 * @param args the arguments after the key
	 * @return the reply
	 * @throws org.springframework.dao.DataAccessException if Redis fails or cannot be reached
	 */
	<T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args);

	/**
	 * Runs a command without waiting for its reply.
	 * @param <T> the reply type, as for {@link #execute}
	 * @param command the command's name
	 * @param returnType how to read the reply
	 * @param key the key the command is routed by, its first argument
	 * @param args the arguments after the key
	 * @return the reply, completed on the driver's thread; exceptionally with a {@code DataAccessException} if
	 * Redis fails, cannot be reached or does not answer within the command timeout
	 */
	<T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key, byte[]... args);

	/**
	 * The executor for a connection factory: the shared native Lettuce connection where the factory has one,
	 * else a connection borrowed per call.
	 * @param connectionFactory the application's connection factory
	 * @return the executor; it opens nothing until its first call
	 */
	static CommandExecutor of(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection()) {
			return new LettuceCommandExecutor(lettuce);
		}
		return new ConnectionCommandExecutor(connectionFactory);
	}

	/**
	 * Whether this executor uses the fast path of {@link #of(RedisConnectionFactory)}.
	 * @return {@code true} on a shared native Lettuce connection
	 */
	boolean isNative();

	/**
	 * Whether the deployment is a Redis Cluster, where one command or script may only name keys of one hash slot.
	 * Elsewhere (one server, Sentinel) a command may name any keys, so a primitive can send one {@code PFCOUNT} of
	 * keys in different slots where a cluster needs a slot-safe path. Told once per executor and kept: the
	 * executors of {@link #of(RedisConnectionFactory)} read it from the factory's configuration (a Lettuce factory
	 * is cluster-aware or not for its life) or, on another factory, from the first connection it hands out; the
	 * application shares one executor, so every primitive asks the same one.
	 * <p>
	 * An executor that cannot tell answers {@code true}: the slot-safe path works on every deployment.
	 * @return {@code true} on Redis Cluster (or when unknown)
	 * @throws org.springframework.dao.DataAccessException if telling needs a connection and Redis cannot be reached
	 */
	default boolean isCluster() {
		return true;
	}

}

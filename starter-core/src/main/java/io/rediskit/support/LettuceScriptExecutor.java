package io.rediskit.support;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.internal.HostAndPort;
import io.rediskit.support.SharedLettuceConnection.Shared;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.support.SharedLettuceConnection.translate;
import static io.rediskit.support.SharedLettuceConnection.unwrap;

/**
 * Runs scripts on the factory's shared native Lettuce connection (see {@link SharedLettuceConnection}).
 */
final class LettuceScriptExecutor implements ScriptExecutor {

	private final SharedLettuceConnection connection;

	LettuceScriptExecutor(LettuceConnectionFactory connectionFactory) {
		this.connection = new SharedLettuceConnection(connectionFactory);
	}

	@Override
	public boolean isNative() {
		return true;
	}

	@Override
	public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		Shared connection = this.connection.get();
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		try {
			try {
				return connection.await(connection.commands().evalsha(script.sha1(), outputType, keys, args));
			}
			catch (RedisNoScriptException ex) {
				// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
				return connection.await(connection.commands().eval(script.body(), outputType, keys, args));
			}
		}
		catch (RuntimeException ex) {
			throw translate(ex);
		}
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs) {
		Shared connection;
		try {
			connection = this.connection.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		RedisFuture<T> first = connection.commands().evalsha(script.sha1(), outputType, keys, args);
		connection.bound(first);
		// One stage on the success path: the reply as the driver completes it.
		return first.exceptionallyCompose((failure) -> {
			Throwable cause = unwrap(failure);
			if (!(cause instanceof RedisNoScriptException)) {
				return CompletableFuture.failedFuture(translate(cause));
			}
			// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
			RedisFuture<T> again = connection.commands().eval(script.body(), outputType, keys, args);
			connection.bound(again);
			return again.exceptionallyCompose((retryFailure) -> CompletableFuture.failedFuture(translate(unwrap(retryFailure))));
		});
	}

	@Override
	public <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
			ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs) {
		if (!wait.enabled() || numKeys < 1) {
			throw new IllegalArgumentException("executeAndWaitAsync needs an enabled wait and a key, was " + wait);
		}
		Shared connection;
		try {
			connection = this.connection.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> result;
		if (connection.stateful() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
			// WAIT counts the writes of the connection it is sent on: send both to the master of the key's slot.
			RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(keys[0]));
			if (master == null) {
				return CompletableFuture.failedFuture(new RedisConnectionFailureException(
						"No master is known for hash slot " + SlotHash.getSlot(keys[0])));
			}
			result = cluster.getConnectionAsync(master.getNodeId())
				.<ReplicaWait.Acknowledged<@Nullable T>>thenCompose((node) -> scriptThenWait(node.async(), connection,
						script, outputType, wait, keys, args))
				.exceptionallyCompose((failure) -> {
					HostAndPort redirect = movedTo(unwrap(failure));
					if (redirect == null) {
						return CompletableFuture.failedFuture(failure);
					}
					// The slot moved (a failover): MOVED means the script did not run, so run it once where it went.
					return cluster.getConnectionAsync(redirect.getHostText(), redirect.getPort())
						.thenCompose((node) -> scriptThenWait(node.async(), connection, script, outputType, wait, keys,
								args));
				});
		}
		else {
			result = scriptThenWait(connection.commands(), connection, script, outputType, wait, keys, args);
		}
		return result.exceptionallyCompose((failure) -> CompletableFuture.failedFuture(translate(unwrap(failure))));
	}

	/** The script, then WAIT pipelined behind it on the same connection; on NOSCRIPT the body and WAIT again. */
	private static <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> scriptThenWait(
			RedisClusterAsyncCommands<byte[], byte[]> commands, Shared connection, LuaScript script,
			ScriptOutputType outputType, ReplicaWait wait, byte[][] keys, byte[][] args) {
		RedisFuture<T> reply = commands.evalsha(script.sha1(), outputType, keys, args);
		RedisFuture<Long> acknowledged = commands.waitForReplication(wait.replicas(), wait.timeout().toMillis());
		connection.bound(reply);
		connection.bound(acknowledged);
		return reply.<Long, ReplicaWait.Acknowledged<@Nullable T>>thenCombine(acknowledged, ReplicaWait.Acknowledged::new)
			.exceptionallyCompose((failure) -> {
				if (!(unwrap(failure) instanceof RedisNoScriptException)) {
					return CompletableFuture.failedFuture(failure);
				}
				// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
				RedisFuture<T> again = commands.eval(script.body(), outputType, keys, args);
				RedisFuture<Long> acknowledgedAgain = commands.waitForReplication(wait.replicas(),
						wait.timeout().toMillis());
				connection.bound(again);
				connection.bound(acknowledgedAgain);
				return again.thenCombine(acknowledgedAgain, ReplicaWait.Acknowledged::new);
			});
	}

	/** The node a {@code MOVED} reply names, or {@code null} for any other failure. */
	private static @Nullable HostAndPort movedTo(Throwable failure) {
		if (failure instanceof RedisCommandExecutionException && failure.getMessage() != null
				&& failure.getMessage().startsWith("MOVED ")) {
			String[] parts = failure.getMessage().split(" ");
			return (parts.length == 3) ? HostAndPort.parse(parts[2]) : null;
		}
		return null;
	}

	private static ScriptOutputType outputType(ReturnType returnType) {
		return switch (returnType) {
			case BOOLEAN -> ScriptOutputType.BOOLEAN;
			case INTEGER -> ScriptOutputType.INTEGER;
			case MULTI -> ScriptOutputType.MULTI;
			case STATUS -> ScriptOutputType.STATUS;
			case VALUE -> ScriptOutputType.VALUE;
		};
	}

}

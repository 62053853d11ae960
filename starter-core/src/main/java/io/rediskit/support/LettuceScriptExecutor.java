package io.rediskit.support;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * Runs scripts on the factory's shared native Lettuce connection, taken once on the first call and again only
 * when the factory has closed it (a reset); Lettuce itself reconnects it after a network failure.
 */
final class LettuceScriptExecutor implements ScriptExecutor {

	private static final LettuceExceptionConverter exceptionConverter = new LettuceExceptionConverter();

	private final LettuceConnectionFactory connectionFactory;

	private volatile @Nullable Shared shared;

	LettuceScriptExecutor(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public boolean isNative() {
		return true;
	}

	@Override
	public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		Shared connection = connection();
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		try {
			try {
				return await(connection, connection.commands.evalsha(script.sha1(), outputType, keys, args));
			}
			catch (RedisNoScriptException ex) {
				// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
				return await(connection, connection.commands.eval(script.body(), outputType, keys, args));
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
			connection = connection();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		RedisFuture<T> first = connection.commands.evalsha(script.sha1(), outputType, keys, args);
		bound(first, connection);
		// One stage on the success path: the reply as the driver completes it.
		return first.exceptionallyCompose((failure) -> {
			Throwable cause = unwrap(failure);
			if (!(cause instanceof RedisNoScriptException)) {
				return CompletableFuture.failedFuture(translate(cause));
			}
			// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
			RedisFuture<T> again = connection.commands.eval(script.body(), outputType, keys, args);
			bound(again, connection);
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
			connection = connection();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		byte[][] keys = Arrays.copyOfRange(keysAndArgs, 0, numKeys);
		byte[][] args = Arrays.copyOfRange(keysAndArgs, numKeys, keysAndArgs.length);
		ScriptOutputType outputType = outputType(returnType);
		CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> result;
		if (connection.stateful instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
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
			result = scriptThenWait(connection.commands, connection, script, outputType, wait, keys, args);
		}
		return result.exceptionallyCompose((failure) -> CompletableFuture.failedFuture(translate(unwrap(failure))));
	}

	/** The script, then WAIT pipelined behind it on the same connection; on NOSCRIPT the body and WAIT again. */
	private static <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> scriptThenWait(
			RedisClusterAsyncCommands<byte[], byte[]> commands, Shared connection, LuaScript script,
			ScriptOutputType outputType, ReplicaWait wait, byte[][] keys, byte[][] args) {
		RedisFuture<T> reply = commands.evalsha(script.sha1(), outputType, keys, args);
		RedisFuture<Long> acknowledged = commands.waitForReplication(wait.replicas(), wait.timeout().toMillis());
		bound(reply, connection);
		bound(acknowledged, connection);
		return reply.<Long, ReplicaWait.Acknowledged<@Nullable T>>thenCombine(acknowledged, ReplicaWait.Acknowledged::new)
			.exceptionallyCompose((failure) -> {
				if (!(unwrap(failure) instanceof RedisNoScriptException)) {
					return CompletableFuture.failedFuture(failure);
				}
				// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
				RedisFuture<T> again = commands.eval(script.body(), outputType, keys, args);
				RedisFuture<Long> acknowledgedAgain = commands.waitForReplication(wait.replicas(),
						wait.timeout().toMillis());
				bound(again, connection);
				bound(acknowledgedAgain, connection);
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

	/**
	 * Ends a command that outlives the command timeout, as the sync path does. Lettuce does this itself unless
	 * the application turned its {@code TimeoutOptions} off.
	 */
	private static void bound(RedisFuture<?> future, Shared connection) {
		if (connection.driverTimesOut || future.isDone()) {
			return;
		}
		Duration timeout = connection.timeout;
		CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> future
			.toCompletableFuture()
			.completeExceptionally(new RedisCommandTimeoutException(
					"Command timed out after " + timeout.toMillis() + " millisecond(s)")));
	}

	private static <T> T await(Shared connection, RedisFuture<T> future) {
		return LettuceFutures.awaitOrCancel(future, connection.timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	private Shared connection() {
		Shared current = this.shared;
		if (current != null && current.stateful.isOpen()) {
			return current;
		}
		synchronized (this) {
			current = this.shared;
			if (current == null || !current.stateful.isOpen()) {
				current = open();
				this.shared = current;
			}
			return current;
		}
	}

	@SuppressWarnings("unchecked")
	private Shared open() {
		// The wrapper hands out the factory's shared connection; closing the wrapper leaves that open.
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Object nativeConnection = connection.getNativeConnection();
			if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
				var commands = (RedisAdvancedClusterAsyncCommands<byte[], byte[]>) cluster;
				return new Shared(commands, commands.getStatefulConnection());
			}
			if (nativeConnection instanceof RedisAsyncCommands<?, ?> standalone) {
				var commands = (RedisAsyncCommands<byte[], byte[]>) standalone;
				return new Shared(commands, commands.getStatefulConnection());
			}
			throw new IllegalStateException("Unexpected native Lettuce connection " + nativeConnection.getClass().getName());
		}
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

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static RuntimeException translate(Throwable failure) {
		if (failure instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		if (failure instanceof Exception exception) {
			DataAccessException translated = exceptionConverter.convert(exception);
			if (translated != null) {
				return translated;
			}
		}
		return (failure instanceof RuntimeException runtime) ? runtime : new CompletionException(failure);
	}

	private record Shared(RedisClusterAsyncCommands<byte[], byte[]> commands, StatefulConnection<byte[], byte[]> stateful,
			Duration timeout, boolean driverTimesOut) {

		Shared(RedisClusterAsyncCommands<byte[], byte[]> commands, StatefulConnection<byte[], byte[]> stateful) {
			this(commands, stateful, stateful.getTimeout(), stateful.getOptions().getTimeoutOptions().isTimeoutCommands());
		}

	}

}

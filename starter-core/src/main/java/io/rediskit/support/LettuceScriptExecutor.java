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
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
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

	/**
	 * Reads the observation in scope on the dispatching thread: Micrometer keeps the scope of every registry made by
	 * {@link ObservationRegistry#create()} (the application's, under Spring Boot) in one thread-local they share, so
	 * any of them answers; reading it allocates nothing. A registry of another kind is not seen, and its observations'
	 * fallbacks are sent outside their scope.
	 */
	private static final ObservationRegistry SCOPES = ObservationRegistry.create();

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
		Observation dispatching = SCOPES.getCurrentObservation();
		RedisFuture<T> first = connection.commands().evalsha(script.sha1(), outputType, keys, args);
		connection.bound(first);
		// One stage on the success path: the reply as the driver completes it.
		return first.exceptionallyCompose((failure) -> {
			Throwable cause = unwrap(failure);
			if (!(cause instanceof RedisNoScriptException)) {
				return CompletableFuture.failedFuture(translate(cause));
			}
			// NOSCRIPT means the server ran nothing: sending the body once applies the call exactly once.
			RedisFuture<T> again;
			try (Observation.Scope scope = inScope(dispatching)) {
				again = connection.commands().eval(script.body(), outputType, keys, args);
			}
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
		Observation dispatching = SCOPES.getCurrentObservation();
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
						script, outputType, wait, keys, args, dispatching))
				.exceptionallyCompose((failure) -> {
					HostAndPort redirect = movedTo(unwrap(failure));
					if (redirect == null) {
						return CompletableFuture.failedFuture(failure);
					}
					// The slot moved (a failover): MOVED means the script did not run, so run it once where it went.
					return cluster.getConnectionAsync(redirect.getHostText(), redirect.getPort())
						.thenCompose((node) -> scriptThenWait(node.async(), connection, script, outputType, wait, keys,
								args, dispatching));
				});
		}
		else {
			result = scriptThenWait(connection.commands(), connection, script, outputType, wait, keys, args,
					dispatching);
		}
		return result.exceptionallyCompose((failure) -> CompletableFuture.failedFuture(translate(unwrap(failure))));
	}

	/**
	 * The script, then WAIT pipelined behind it on the same connection; on NOSCRIPT the body and WAIT again, in the
	 * scope of the observation current when the call was dispatched.
	 */
	private static <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> scriptThenWait(
			RedisClusterAsyncCommands<byte[], byte[]> commands, Shared connection, LuaScript script,
			ScriptOutputType outputType, ReplicaWait wait, byte[][] keys, byte[][] args,
			@Nullable Observation dispatching) {
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
				RedisFuture<T> again;
				RedisFuture<Long> acknowledgedAgain;
				try (Observation.Scope scope = inScope(dispatching)) {
					again = commands.eval(script.body(), outputType, keys, args);
					acknowledgedAgain = commands.waitForReplication(wait.replicas(), wait.timeout().toMillis());
				}
				connection.bound(again);
				connection.bound(acknowledgedAgain);
				return again.thenCombine(acknowledgedAgain, ReplicaWait.Acknowledged::new);
			});
	}

	/**
	 * Opens, on the thread that sends a {@code NOSCRIPT} fallback (the driver's, as a rule), the scope of the
	 * observation that was current when the call was dispatched, so that the fallback's command span is its child as
	 * the first attempt's was; close it as soon as the command is sent, before the reply is handled.
	 * @return the scope, or {@code null} (nothing to close) when no observation was current
	 */
	private static Observation.@Nullable Scope inScope(@Nullable Observation dispatching) {
		return (dispatching != null && !dispatching.isNoop()) ? dispatching.openScope() : null;
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

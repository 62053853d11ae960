package io.rediskit.support;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.rediskit.support.SharedLettuceConnection.Shared;
import org.jspecify.annotations.Nullable;

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

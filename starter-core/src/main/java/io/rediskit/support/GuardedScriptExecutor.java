package io.rediskit.support;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A {@link ScriptExecutor} whose calls go through a {@link RedisAvailability}: refused at once while Redis is
 * unavailable.
 */
final class GuardedScriptExecutor implements ScriptExecutor {

	private final ScriptExecutor delegate;

	private final RedisAvailability availability;

	GuardedScriptExecutor(ScriptExecutor delegate, RedisAvailability availability) {
		this.delegate = delegate;
		this.availability = availability;
	}

	@Override
	public <T> @Nullable T execute(LuaScript script, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		return this.availability.call(() -> this.delegate.execute(script, returnType, numKeys, keysAndArgs));
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(LuaScript script, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs) {
		return this.availability.callAsync(() -> this.delegate.executeAsync(script, returnType, numKeys, keysAndArgs));
	}

	@Override
	public <T> CompletionStage<ReplicaWait.Acknowledged<@Nullable T>> executeAndWaitAsync(LuaScript script,
			ReturnType returnType, ReplicaWait wait, int numKeys, byte[]... keysAndArgs) {
		return this.availability
			.callAsync(() -> this.delegate.executeAndWaitAsync(script, returnType, wait, numKeys, keysAndArgs));
	}

	@Override
	public ScriptExecutor ungated() {
		return this.delegate.ungated();
	}

	@Override
	public boolean isNative() {
		return this.delegate.isNative();
	}

}

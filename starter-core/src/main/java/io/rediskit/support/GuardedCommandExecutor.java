package io.rediskit.support;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A {@link CommandExecutor} whose calls go through a {@link RedisAvailability}: refused at once while Redis is
 * unavailable.
 */
final class GuardedCommandExecutor implements CommandExecutor {

	private final CommandExecutor delegate;

	private final RedisAvailability availability;

	GuardedCommandExecutor(CommandExecutor delegate, RedisAvailability availability) {
		this.delegate = delegate;
		this.availability = availability;
	}

	@Override
	public <T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args) {
		return this.availability.call(() -> this.delegate.execute(command, returnType, key, args));
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key,
			byte[]... args) {
		return this.availability.callAsync(() -> this.delegate.executeAsync(command, returnType, key, args));
	}

	@Override
	public boolean isNative() {
		return this.delegate.isNative();
	}

	/** Not gated: the answer is known without Redis once the delegate has told it. */
	@Override
	public boolean isCluster() {
		return this.delegate.isCluster();
	}

}

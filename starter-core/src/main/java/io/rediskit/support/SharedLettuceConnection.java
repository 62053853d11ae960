package io.rediskit.support;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * The factory's shared native Lettuce connection as the fast-path executors use it: taken once on the first
 * call and again only when the factory has closed it (a reset); Lettuce itself reconnects it after a network
 * failure. Also the waiting, the timeout bound and the exception translation both executors apply alike.
 */
final class SharedLettuceConnection {

	private static final LettuceExceptionConverter exceptionConverter = new LettuceExceptionConverter();

	private final LettuceConnectionFactory connectionFactory;

	private volatile @Nullable Shared shared;

	SharedLettuceConnection(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** @return the open connection's async commands, standalone, Sentinel or Cluster */
	Shared get() {
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

	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	static RuntimeException translate(Throwable failure) {
		if (failure instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		// Lettuce fails the command in flight when its connection is reset with the channel's IOException, which
		// Spring's converter leaves untranslated: it is the connection failing, as for a refused connection.
		if (failure instanceof IOException io) {
			return new RedisConnectionFailureException("Redis connection failed: " + io.getMessage(), io);
		}
		if (failure instanceof Exception exception) {
			DataAccessException translated = exceptionConverter.convert(exception);
			if (translated != null) {
				return translated;
			}
		}
		return (failure instanceof RuntimeException runtime) ? runtime : new CompletionException(failure);
	}

	/**
	 * The open connection.
	 * @param commands its async commands; on Cluster they route each command by the slot of its first key
	 * @param stateful the connection
	 * @param timeout its command timeout
	 * @param driverTimesOut whether Lettuce ends commands that outlive the timeout itself
	 */
	record Shared(RedisClusterAsyncCommands<byte[], byte[]> commands, StatefulConnection<byte[], byte[]> stateful,
			Duration timeout, boolean driverTimesOut) {

		Shared(RedisClusterAsyncCommands<byte[], byte[]> commands, StatefulConnection<byte[], byte[]> stateful) {
			this(commands, stateful, stateful.getTimeout(), stateful.getOptions().getTimeoutOptions().isTimeoutCommands());
		}

		/** Waits for a reply at most the command timeout, as the synchronous Lettuce API does. */
		<T> T await(RedisFuture<T> future) {
			return LettuceFutures.awaitOrCancel(future, this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}

		/**
		 * Ends a command that outlives the command timeout, as the sync path does. Lettuce does this itself
		 * unless the application turned its {@code TimeoutOptions} off.
		 */
		void bound(RedisFuture<?> future) {
			if (this.driverTimesOut || future.isDone()) {
				return;
			}
			Duration limit = this.timeout;
			CompletableFuture.delayedExecutor(limit.toNanos(), TimeUnit.NANOSECONDS).execute(() -> future
				.toCompletableFuture()
				.completeExceptionally(new RedisCommandTimeoutException(
						"Command timed out after " + limit.toMillis() + " millisecond(s)")));
		}

	}

}

package io.rediskit.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Runs commands on a connection borrowed from the factory per call: the path for factories without a shared
 * native Lettuce connection (Jedis, or Lettuce with {@code shareNativeConnection=false}).
 */
final class ConnectionCommandExecutor implements CommandExecutor {

	private final RedisConnectionFactory connectionFactory;

	private volatile @Nullable Boolean cluster;

	ConnectionCommandExecutor(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public boolean isNative() {
		return false;
	}

	/** Asked of the first connection (any factory's cluster connections are {@link RedisClusterConnection}s), then kept. */
	@Override
	public boolean isCluster() {
		Boolean known = this.cluster;
		if (known == null) {
			if (this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
				known = lettuce.isClusterAware();
			}
			else {
				try (RedisConnection connection = this.connectionFactory.getConnection()) {
					known = connection instanceof RedisClusterConnection;
				}
			}
			this.cluster = known;
		}
		return known;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args) {
		byte[][] keyAndArgs = new byte[args.length + 1][];
		keyAndArgs[0] = key;
		System.arraycopy(args, 0, keyAndArgs, 1, args.length);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof LettuceConnection lettuce) {
				// Lettuce reads replies by the output it is given; left to guess, it reads unknown commands as bytes.
				return (T) lettuce.execute(command, LettuceCommandExecutor.output(returnType), keyAndArgs);
			}
			// Jedis replies with Long, byte[] and List, the types this interface promises.
			return (T) connection.execute(command, keyAndArgs);
		}
	}

	/** Runs on the calling thread: this path has no driver to wait on without blocking. */
	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key,
			byte[]... args) {
		try {
			return CompletableFuture.completedFuture(execute(command, returnType, key, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

}

package io.rediskit.keys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Lettuce connections the key tools use, taken from the factory's shared native connection on first use:
 * one per master to scan (on a cluster, {@code getConnection(nodeId)} of the cluster connection, for each node
 * flagged upstream in its current view of the partitions), and the routing connection for commands on a key
 * (on a cluster it sends each to the master of the key's slot).
 */
final class KeyNodes {

	/** A master: its id (the cluster node id, or {@value #STANDALONE}) and its connection. */
	record Node(String id, RedisClusterAsyncCommands<byte[], byte[]> commands) {
	}

	static final String STANDALONE = "-";

	private static final LettuceExceptionConverter exceptionConverter = new LettuceExceptionConverter();

	private final LettuceConnectionFactory connectionFactory;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> routing;

	private volatile @Nullable StatefulConnection<byte[], byte[]> stateful;

	KeyNodes(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** @return whether the deployment is a cluster */
	boolean isCluster() {
		return routing() instanceof RedisAdvancedClusterAsyncCommands<?, ?>;
	}

	/** @return the masters as the client sees them now */
	List<Node> masters() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = routing();
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			List<Node> masters = new ArrayList<>();
			for (RedisClusterNode node : cluster.getStatefulConnection().getPartitions()) {
				if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
					masters.add(new Node(node.getNodeId(), cluster.getConnection(node.getNodeId())));
				}
			}
			return masters;
		}
		return List.of(new Node(STANDALONE, commands));
	}

	/** @return the connection that sends a command on a key to the server that holds it */
	@SuppressWarnings("unchecked")
	RedisClusterAsyncCommands<byte[], byte[]> routing() {
		RedisClusterAsyncCommands<byte[], byte[]> current = this.routing;
		StatefulConnection<byte[], byte[]> open = this.stateful;
		if (current != null && open != null && open.isOpen()) {
			return current;
		}
		if (!this.connectionFactory.getShareNativeConnection()) {
			throw new IllegalStateException("The key tools need a LettuceConnectionFactory that shares its native "
					+ "connection (the default)");
		}
		// The wrapper hands out the factory's shared connection; closing the wrapper leaves that open.
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Object nativeConnection = connection.getNativeConnection();
			if (nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
				var commands = (RedisAdvancedClusterAsyncCommands<byte[], byte[]>) cluster;
				this.stateful = commands.getStatefulConnection();
				current = commands;
			}
			else if (nativeConnection instanceof RedisAsyncCommands<?, ?> standalone) {
				var commands = (RedisAsyncCommands<byte[], byte[]>) standalone;
				this.stateful = commands.getStatefulConnection();
				current = commands;
			}
			else {
				throw new IllegalStateException("Unexpected native Lettuce connection " + nativeConnection.getClass().getName());
			}
		}
		this.routing = current;
		return current;
	}

	/** Spring's exception for a driver failure, as Spring Data Redis translates it. */
	static RuntimeException translate(RuntimeException failure) {
		if (failure instanceof DataAccessException) {
			return failure;
		}
		DataAccessException translated = exceptionConverter.convert(failure);
		return (translated != null) ? translated : failure;
	}

	/** Waits for a reply at most the command timeout, failing as Lettuce's sync API does. */
	<T> T await(RedisFuture<T> future) {
		Duration timeout = this.connectionFactory.getClientConfiguration().getCommandTimeout();
		return LettuceFutures.awaitOrCancel(future, timeout.toNanos(), TimeUnit.NANOSECONDS);
	}

	/**
	 * Waits for a stage of commands (one sent when a reply before it arrived) as {@link #await(RedisFuture)} waits
	 * for one command: at most the command timeout, then cancelled with Lettuce's timeout exception; a failure is
	 * the command's own exception.
	 */
	<T> T await(CompletableFuture<T> future) {
		Duration timeout = this.connectionFactory.getClientConfiguration().getCommandTimeout();
		try {
			return (timeout.isZero() || timeout.isNegative()) ? future.get()
					: future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw new RedisCommandTimeoutException("Command timed out after " + timeout.toMillis() + " ms");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			throw (cause instanceof RuntimeException runtime) ? runtime : new RedisException(cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisCommandInterruptedException(ex);
		}
	}

}

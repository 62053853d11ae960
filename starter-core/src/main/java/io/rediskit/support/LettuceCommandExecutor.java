package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.rediskit.support.SharedLettuceConnection.Shared;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.support.SharedLettuceConnection.translate;
import static io.rediskit.support.SharedLettuceConnection.unwrap;

/**
 * Runs commands on the factory's shared native Lettuce connection (see {@link SharedLettuceConnection}) with
 * Lettuce's {@code dispatch}, which on Cluster routes by the slot of the first key.
 */
final class LettuceCommandExecutor implements CommandExecutor {

	private final SharedLettuceConnection connection;

	private final boolean cluster;

	LettuceCommandExecutor(LettuceConnectionFactory connectionFactory) {
		this.connection = new SharedLettuceConnection(connectionFactory);
		// The factory's configuration picks its connection kind for good: a cluster connection exactly when it
		// is cluster-aware. Read here, it costs no connection.
		this.cluster = connectionFactory.isClusterAware();
	}

	@Override
	public boolean isNative() {
		return true;
	}

	@Override
	public boolean isCluster() {
		return this.cluster;
	}

	@Override
	public <T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args) {
		try {
			Shared connection = this.connection.get();
			return connection.await(dispatch(connection, command, returnType, key, args));
		}
		catch (RuntimeException ex) {
			throw translate(ex);
		}
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key,
			byte[]... args) {
		RedisFuture<T> reply;
		Shared connection;
		try {
			connection = this.connection.get();
			reply = dispatch(connection, command, returnType, key, args);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translate(ex));
		}
		connection.bound(reply);
		return reply.exceptionallyCompose((failure) -> CompletableFuture.failedFuture(translate(unwrap(failure))));
	}

	private static <T> RedisFuture<T> dispatch(Shared connection, String command, ReturnType returnType, byte[] key,
			byte[][] args) {
		CommandArgs<byte[], byte[]> commandArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key);
		for (byte[] arg : args) {
			commandArgs.add(arg);
		}
		return connection.commands().dispatch(new Keyword(command), output(returnType), commandArgs);
	}

	@SuppressWarnings("unchecked")
	static <T> CommandOutput<byte[], byte[], T> output(ReturnType returnType) {
		ByteArrayCodec codec = ByteArrayCodec.INSTANCE;
		return (CommandOutput<byte[], byte[], T>) switch (returnType) {
			case BOOLEAN -> new BooleanOutput<>(codec);
			case INTEGER -> new IntegerOutput<>(codec);
			case MULTI -> new NestedMultiOutput<>(codec);
			case STATUS -> new StatusOutput<>(codec);
			case VALUE -> new ValueOutput<>(codec);
		};
	}

	/** A command by name, known to Lettuce or not (a module's {@code BF.MADD}, {@code BITFIELD_RO}). */
	private record Keyword(String name) implements ProtocolKeyword {

		@Override
		public byte[] getBytes() {
			return this.name.getBytes(StandardCharsets.US_ASCII);
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

}

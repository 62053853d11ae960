package io.rediskit.support;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * A real {@link CommandExecutor} that notes the name of every command sent through it, so that a test can say
 * which path an operation took (one {@code PFCOUNT}, a plain {@code BITFIELD}) without counting what scripts run
 * inside the server. It can also claim to be a cluster, so that a test on one server takes the path a cluster
 * needs.
 */
public final class RecordingCommands implements CommandExecutor {

	private final CommandExecutor delegate;

	private final boolean cluster;

	private final List<String> sent = new CopyOnWriteArrayList<>();

	/** @param delegate the executor that sends the commands; whether it is a cluster is its answer */
	public RecordingCommands(CommandExecutor delegate) {
		this(delegate, delegate.isCluster());
	}

	/**
	 * @param delegate the executor that sends the commands
	 * @param cluster what {@link #isCluster()} answers
	 */
	public RecordingCommands(CommandExecutor delegate, boolean cluster) {
		this.delegate = delegate;
		this.cluster = cluster;
	}

	/** @return the names of the commands sent so far, in order */
	public List<String> sent() {
		return List.copyOf(this.sent);
	}

	/** Forgets the commands sent so far. */
	public void clear() {
		this.sent.clear();
	}

	@Override
	public <T> @Nullable T execute(String command, ReturnType returnType, byte[] key, byte[]... args) {
		this.sent.add(command);
		return this.delegate.execute(command, returnType, key, args);
	}

	@Override
	public <T> CompletionStage<@Nullable T> executeAsync(String command, ReturnType returnType, byte[] key,
			byte[]... args) {
		this.sent.add(command);
		return this.delegate.executeAsync(command, returnType, key, args);
	}

	@Override
	public boolean isNative() {
		return this.delegate.isNative();
	}

	@Override
	public boolean isCluster() {
		return this.cluster;
	}

}

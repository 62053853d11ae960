package io.rediskit.rank;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.Listeners;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What the boards of one leaderboard share: the executors, the listeners, the throttled outage log, and the
 * observation of every call (latency, outages).
 */
final class LeaderboardCalls {

	private static final Log logger = LogFactory.getLog(RedisLeaderboard.class);

	final String name;

	final ScriptExecutor scripts;

	final CommandExecutor commands;

	private final Listeners<LeaderboardListener> listeners;

	private final ThrottledLog outages;

	LeaderboardCalls(String name, ScriptExecutor scripts, CommandExecutor commands,
			Listeners<LeaderboardListener> listeners) {
		this.name = name;
		this.scripts = scripts;
		this.commands = commands;
		this.listeners = listeners;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10), "Leaderboard '" + name + "' cannot reach Redis");
	}

	void notifyVote(VoteResult result) {
		this.listeners.notify((listener) -> listener.onVote(this.name, result));
	}

	<T> CompletionStage<T> observed(String operation, Supplier<CompletionStage<T>> call) {
		long start = System.nanoTime();
		return call.get().handle((result, failure) -> {
			if (failure == null) {
				Duration latency = Duration.ofNanos(System.nanoTime() - start);
				this.listeners.notify((listener) -> listener.onOperation(this.name, operation, latency));
				return result;
			}
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
					: failure;
			if (RedisFailures.isUnavailable(cause) && cause instanceof RuntimeException outage) {
				this.listeners.notify((listener) -> listener.onFailure(this.name, operation, outage));
				this.outages.warn(cause, "the " + operation + " call fails");
			}
			throw (cause instanceof CompletionException completion) ? completion : new CompletionException(cause);
		});
	}

}

package io.rediskit.rank;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.Listeners;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What the boards of one leaderboard share: the executors, the listeners of votes, and the observation of
 * every call ({@link ObservedCalls}).
 */
final class LeaderboardCalls {

	private static final Log logger = LogFactory.getLog(RedisLeaderboard.class);

	final String name;

	final ScriptExecutor scripts;

	final CommandExecutor commands;

	private final Listeners<LeaderboardListener> listeners;

	private final ObservedCalls calls;

	LeaderboardCalls(String name, ScriptExecutor scripts, CommandExecutor commands,
			Listeners<LeaderboardListener> listeners, Supplier<Observations> observations) {
		this.name = name;
		this.scripts = scripts;
		this.commands = commands;
		this.listeners = listeners;
		this.calls = new ObservedCalls("Leaderboard", RedisKitObservation.RANK_OPERATION, name, observations, logger);
	}

	void notifyVote(VoteResult result) {
		this.listeners.notify((listener) -> listener.onVote(this.name, result));
	}

	<T> CompletionStage<T> observed(String operation, Supplier<CompletionStage<T>> call) {
		return this.calls.observed(operation, call);
	}

}

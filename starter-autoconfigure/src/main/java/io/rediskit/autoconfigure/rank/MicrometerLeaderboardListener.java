package io.rediskit.autoconfigure.rank;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.rediskit.rank.LeaderboardListener;
import io.rediskit.rank.VoteResult;

/**
 * Records leaderboard calls as Micrometer meters; the {@code leaderboard} tag is the configured name.
 * <ul>
 * <li>{@code rediskit.leaderboard.operations} (timer; {@code leaderboard}, {@code operation} = write | increment | read |
 * post | vote, {@code result} = success | error): calls and their latency.</li>
 * <li>{@code rediskit.leaderboard.votes} (counter; {@code leaderboard}, {@code result} = counted | already_voted |
 * closed): votes by what they did.</li>
 * </ul>
 */
public class MicrometerLeaderboardListener implements LeaderboardListener {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	private final Map<String, Counter> votes = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLeaderboardListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onOperation(String leaderboard, String operation, Duration latency) {
		timer(leaderboard, operation, "success").record(latency);
	}

	@Override
	public void onVote(String leaderboard, VoteResult result) {
		String tag = result.name().toLowerCase(java.util.Locale.ROOT);
		this.votes.computeIfAbsent(leaderboard + '\u0000' + tag, (key) -> Counter.builder("rediskit.leaderboard.votes")
			.description("Leaderboard votes by what they did")
			.tag("leaderboard", leaderboard)
			.tag("result", tag)
			.register(this.registry)).increment();
	}

	@Override
	public void onFailure(String leaderboard, String operation, RuntimeException failure) {
		timer(leaderboard, operation, "error").record(Duration.ZERO);
	}

	private Timer timer(String leaderboard, String operation, String result) {
		return this.timers.computeIfAbsent(leaderboard + '\u0000' + operation + '\u0000' + result,
				(key) -> Timer.builder("rediskit.leaderboard.operations")
					.description("Leaderboard calls and their latency")
					.tag("leaderboard", leaderboard)
					.tag("operation", operation)
					.tag("result", result)
					.register(this.registry));
	}

}

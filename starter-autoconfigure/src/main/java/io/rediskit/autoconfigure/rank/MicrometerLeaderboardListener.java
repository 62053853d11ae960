package io.rediskit.autoconfigure.rank;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.rank.LeaderboardListener;
import io.rediskit.rank.VoteResult;

/**
 * Records leaderboard votes as a Micrometer meter; the {@code leaderboard} tag is the configured name. The calls'
 * timer, {@code rediskit.leaderboard.operations}, comes from their observations ({@code MicrometerOperationMeters}).
 * <ul>
 * <li>{@code rediskit.leaderboard.votes} (counter; {@code leaderboard}, {@code result} = counted | already_voted |
 * closed): votes by what they did.</li>
 * </ul>
 */
public class MicrometerLeaderboardListener implements LeaderboardListener {

	private final MeterRegistry registry;

	private final Map<String, Counter> votes = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLeaderboardListener(MeterRegistry registry) {
		this.registry = registry;
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

}

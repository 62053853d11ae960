package io.rediskit.autoconfigure.rank;

import java.time.Duration;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.rediskit.rank.BoardPeriod;
import io.rediskit.rank.LeaderboardSpec;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Leaderboard settings, under {@code redis-kit.leaderboard}:
 *
 * <pre>{@code
 * redis-kit:
 *   leaderboard:
 *     leaderboards:
 *       articles:
 *         zone: Europe/Paris
 *         periods: daily, weekly
 *         vote-weight: 432s
 *         vote-window: 7d
 * }</pre>
 *
 * Checked when the registry is built, by the rules of {@link LeaderboardSpec} and {@link io.rediskit.support.Names}.
 */
@ConfigurationProperties(prefix = "redis-kit.leaderboard", ignoreUnknownFields = false)
public class RankProperties {

	/**
	 * Whether to auto-configure the leaderboards.
	 */
	private boolean enabled = true;

	/**
	 * Leaderboards by name: letters, digits, '_' and '-', at most 64 characters, no '.'.
	 */
	private Map<String, Board> leaderboards = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, Board> getLeaderboards() {
		return this.leaderboards;
	}

	public void setLeaderboards(Map<String, Board> leaderboards) {
		this.leaderboards = leaderboards;
	}

	/**
	 * One leaderboard.
	 */
	public static class Board {

		/**
		 * Time zone whose days, weeks and months are the period boards, such as Europe/Paris.
		 */
		private ZoneId zone = ZoneId.of("UTC");

		/**
		 * Period boards kept beside the all-time board from the same increments: daily, weekly, monthly.
		 */
		private Set<BoardPeriod> periods = EnumSet.noneOf(BoardPeriod.class);

		/**
		 * How long a period board is kept after its period ends, from 1h to 36500d (100 years).
		 */
		private Duration periodRetention = LeaderboardSpec.DEFAULT_PERIOD_RETENTION;

		/**
		 * How long a computed view (a range of periods, a group) is reused before the server computes it again,
		 * from 1ms to 1h.
		 */
		private Duration viewCacheTtl = LeaderboardSpec.DEFAULT_VIEW_CACHE_TTL;

		/**
		 * What one vote adds to an item's score, in seconds of posting time; set with vote-window to take votes.
		 */
		private @Nullable Duration voteWeight;

		/**
		 * How long after its posting an item takes votes; set with vote-weight to take votes.
		 */
		private @Nullable Duration voteWindow;

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public Set<BoardPeriod> getPeriods() {
			return this.periods;
		}

		public void setPeriods(Set<BoardPeriod> periods) {
			this.periods = periods;
		}

		public Duration getPeriodRetention() {
			return this.periodRetention;
		}

		public void setPeriodRetention(Duration periodRetention) {
			this.periodRetention = periodRetention;
		}

		public Duration getViewCacheTtl() {
			return this.viewCacheTtl;
		}

		public void setViewCacheTtl(Duration viewCacheTtl) {
			this.viewCacheTtl = viewCacheTtl;
		}

		public @Nullable Duration getVoteWeight() {
			return this.voteWeight;
		}

		public void setVoteWeight(@Nullable Duration voteWeight) {
			this.voteWeight = voteWeight;
		}

		public @Nullable Duration getVoteWindow() {
			return this.voteWindow;
		}

		public void setVoteWindow(@Nullable Duration voteWindow) {
			this.voteWindow = voteWindow;
		}

	}

}

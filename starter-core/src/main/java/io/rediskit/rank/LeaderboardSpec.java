package io.rediskit.rank;

import java.time.Duration;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

/**
 * What one leaderboard keeps: period boards in {@code zone}, each kept for {@code periodRetention} after its
 * period ends, computed views (a range of periods, a group) cached for {@code viewCacheTtl}, and optionally
 * votes.
 *
 * <pre>{@code
 * LeaderboardSpec spec = LeaderboardSpec.of(ZoneId.of("Europe/Paris"))
 * 	.withPeriods(Set.of(BoardPeriod.DAILY, BoardPeriod.WEEKLY))
 * 	.withVoting(Duration.ofSeconds(432), Duration.ofDays(7));
 * }</pre>
 *
 * @param zone the time zone whose days, weeks and months are the periods; explicit, never the JVM's default
 * @param periods the period boards kept beside the all-time board, from {@link Leaderboard#increment}; may be
 * empty
 * @param periodRetention how long a period board is kept after its period ends, from 1 h to
 * {@link Expiry#MAX 100 years}
 * @param viewCacheTtl how long a computed view (a range of periods, a group) is kept and read by everyone before
 * the server computes it again, from 1 ms to 1 h: a change shows in a view after at most this long
 * @param voteWeight what one vote adds to an item's score, in seconds of posting time (a vote worth 432 s lifts an
 * item as much as being posted 432 s later), from 1 ms to 100 years; {@code null} without voting
 * @param voteWindow how long after its posting an item takes votes, from 1 s to 100 years; {@code null} without
 * voting. The voters of an item are kept this long too
 */
public record LeaderboardSpec(ZoneId zone, Set<BoardPeriod> periods, Duration periodRetention, Duration viewCacheTtl,
		@Nullable Duration voteWeight, @Nullable Duration voteWindow) {

	/** Period retention used unless one is given: a little over a year, so last year's monthly boards stay. */
	public static final Duration DEFAULT_PERIOD_RETENTION = Duration.ofDays(400);

	/** View cache TTL used unless one is given. */
	public static final Duration DEFAULT_VIEW_CACHE_TTL = Duration.ofSeconds(10);

	/**
	 * Validates the spec.
	 * @throws InvalidSpecException naming the component and the reason
	 */
	public LeaderboardSpec {
		Objects.requireNonNull(zone, "zone must not be null");
		Objects.requireNonNull(periods, "periods must not be null");
		Objects.requireNonNull(periodRetention, "periodRetention must not be null");
		Objects.requireNonNull(viewCacheTtl, "viewCacheTtl must not be null");
		periods = periods.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(periods));
		if (periodRetention.compareTo(Duration.ofHours(1)) < 0) {
			throw new InvalidSpecException("periodRetention", "must be at least 1h, was " + periodRetention);
		}
		Expiry.requireAtMostMax("periodRetention", periodRetention);
		if (viewCacheTtl.compareTo(Duration.ofMillis(1)) < 0 || viewCacheTtl.compareTo(Duration.ofHours(1)) > 0) {
			throw new InvalidSpecException("viewCacheTtl", "must be from 1ms to 1h, was " + viewCacheTtl);
		}
		if ((voteWeight == null) != (voteWindow == null)) {
			String missing = (voteWeight == null) ? "voteWeight" : "voteWindow";
			throw new InvalidSpecException(missing, "must be set as well: voting needs both a vote weight and a vote window");
		}
		if (voteWeight != null && voteWeight.compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidSpecException("voteWeight", "must be at least 1ms, was " + voteWeight);
		}
		Expiry.requireAtMostMax("voteWeight", voteWeight);
		if (voteWindow != null && voteWindow.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new InvalidSpecException("voteWindow", "must be at least 1s, was " + voteWindow);
		}
		Expiry.requireAtMostMax("voteWindow", voteWindow);
	}

	/**
	 * An all-time board without period boards or voting.
	 * @param zone the zone periods would follow
	 * @return the spec
	 */
	public static LeaderboardSpec of(ZoneId zone) {
		return new LeaderboardSpec(zone, Set.of(), DEFAULT_PERIOD_RETENTION, DEFAULT_VIEW_CACHE_TTL, null, null);
	}

	/**
	 * @param periods the period boards to keep
	 * @return a copy that keeps them
	 */
	public LeaderboardSpec withPeriods(Set<BoardPeriod> periods) {
		return new LeaderboardSpec(this.zone, periods, this.periodRetention, this.viewCacheTtl, this.voteWeight,
				this.voteWindow);
	}

	/**
	 * @param periodRetention how long a period board is kept after its period
	 * @return a copy with that retention
	 */
	public LeaderboardSpec withPeriodRetention(Duration periodRetention) {
		return new LeaderboardSpec(this.zone, this.periods, periodRetention, this.viewCacheTtl, this.voteWeight,
				this.voteWindow);
	}

	/**
	 * @param viewCacheTtl how long a computed view is reused
	 * @return a copy with that TTL
	 */
	public LeaderboardSpec withViewCacheTtl(Duration viewCacheTtl) {
		return new LeaderboardSpec(this.zone, this.periods, this.periodRetention, viewCacheTtl, this.voteWeight,
				this.voteWindow);
	}

	/**
	 * @param voteWeight what one vote adds to a score, in seconds of posting time
	 * @param voteWindow how long after posting an item takes votes
	 * @return a copy with voting
	 */
	public LeaderboardSpec withVoting(Duration voteWeight, Duration voteWindow) {
		return new LeaderboardSpec(this.zone, this.periods, this.periodRetention, this.viewCacheTtl,
				Objects.requireNonNull(voteWeight, "voteWeight must not be null"),
				Objects.requireNonNull(voteWindow, "voteWindow must not be null"));
	}

	/** @return whether the board takes votes */
	public boolean voting() {
		return this.voteWeight != null;
	}

}

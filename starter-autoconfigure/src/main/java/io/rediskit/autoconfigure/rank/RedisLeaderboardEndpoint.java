package io.rediskit.autoconfigure.rank;

import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.autoconfigure.support.InvalidEndpointRequest;
import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.RankOrder;
import io.rediskit.rank.RankedMember;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitleaderboard}: every configured or used leaderboard with its size and its top
 * {@value #TOP} members, highest score first ({@code GET /actuator/rediskitleaderboard}), and one member's rank and
 * score ({@code GET /actuator/rediskitleaderboard/{leaderboard}/{member}}). Each read is one or two commands on one
 * key ({@code ZCARD}, {@code ZREVRANGE}, {@code ZREVRANK}), never a scan. The web console reads the same
 * descriptors.
 * <p>
 * Members are the application's values (often user ids), so the top members show their names only as
 * {@code management.endpoint.rediskitleaderboard.show-values} says, like Spring Boot's {@code env} endpoint: never by
 * default, {@code when-authorized} to a user in one of {@code management.endpoint.rediskitleaderboard.roles} (any
 * authenticated user when none is set), or {@code always}. Hidden, each keeps its rank and score with
 * {@code member} {@code null}. A member's lookup answers for the member the caller names, with its rank and score
 * only, so it reveals no name.
 */
@Endpoint(id = "rediskitleaderboard")
public class RedisLeaderboardEndpoint {

	/** How many members of each leaderboard are listed. */
	public static final int TOP = 10;

	/** The longest member a lookup takes. */
	public static final int MAX_MEMBER_LENGTH = 1024;

	private static final String MEMBER_LENGTH = "member must have 1 to " + MAX_MEMBER_LENGTH + " characters";

	private final LeaderboardRegistry registry;

	private final RankProperties properties;

	private final ShownValues shownValues;

	/**
	 * An endpoint that never shows members' names.
	 * @param registry the leaderboards
	 * @param properties the configured leaderboards
	 */
	public RedisLeaderboardEndpoint(LeaderboardRegistry registry, RankProperties properties) {
		this(registry, properties, ShownValues.never());
	}

	/**
	 * @param registry the leaderboards
	 * @param properties the configured leaderboards
	 * @param shownValues to whom the top members show their names
	 */
	public RedisLeaderboardEndpoint(LeaderboardRegistry registry, RankProperties properties,
			ShownValues shownValues) {
		this.registry = registry;
		this.properties = properties;
		this.shownValues = shownValues;
	}

	/** @return the configured leaderboards and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getLeaderboards());
	}

	/**
	 * @param securityContext who asks, for {@code show-values=when-authorized}
	 * @return every leaderboard with its size and top members (their names only if shown to who asks)
	 */
	@ReadOperation
	public LeaderboardsDescriptor leaderboards(SecurityContext securityContext) {
		return leaderboards(this.shownValues.to(securityContext));
	}

	/**
	 * Every leaderboard as {@link #leaderboards(SecurityContext)} describes it, for a reader that decides itself
	 * whether names show (the console, under {@code redis-kit.console.show-payloads}).
	 * @param shown whether the top members show their names
	 * @return every leaderboard with its size and top members
	 */
	public LeaderboardsDescriptor leaderboards(boolean shown) {
		return new LeaderboardsDescriptor(names().stream().map((name) -> describe(name, shown)).toList());
	}

	private LeaderboardDescriptor describe(String name, boolean shown) {
		try {
			Leaderboard board = this.registry.get(name);
			return new LeaderboardDescriptor(name, board.size(),
					board.top(TOP).stream().map((member) -> MemberDescriptor.of(member, shown)).toList(), null);
		}
		catch (RuntimeException ex) {
			return new LeaderboardDescriptor(name, 0, List.of(), String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * One member's rank over HTTP or JMX: a leaderboard not {@link #names() listed} is answered as Spring Boot's own
	 * endpoints answer a name they do not have (404 over HTTP), a member empty or too long as a bad request (400),
	 * never as a server error.
	 * @param leaderboard a leaderboard {@link #names() listed}
	 * @param member a member, as the application names it
	 * @return the member's rank (highest score first) and score, or {@code ranked=false}; {@code null} for a
	 * leaderboard not listed
	 * @throws org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException
	 * for a member empty or longer than {@value #MAX_MEMBER_LENGTH} (not
	 * echoed: it is user input)
	 */
	@ReadOperation
	public @Nullable MemberRankDescriptor member(@Selector String leaderboard, @Selector String member) {
		if (!names().contains(leaderboard)) {
			return null;
		}
		if (!isMember(member)) {
			throw InvalidEndpointRequest.of(MEMBER_LENGTH);
		}
		return rank(leaderboard, member);
	}

	/**
	 * One member's rank, for a reader that answers bad input itself (the console).
	 * @param leaderboard a leaderboard {@link #names() listed}
	 * @param member a member, as the application names it
	 * @return the member's rank (highest score first) and score, or {@code ranked=false}
	 * @throws IllegalArgumentException for a leaderboard not listed or a member empty or longer than
	 * {@value #MAX_MEMBER_LENGTH} (neither is echoed: both are user input)
	 */
	public MemberRankDescriptor rank(String leaderboard, String member) {
		if (!names().contains(leaderboard)) {
			throw new IllegalArgumentException("No leaderboard is named so");
		}
		if (!isMember(member)) {
			throw new IllegalArgumentException(MEMBER_LENGTH);
		}
		Optional<RankedMember> entry = this.registry.get(leaderboard).entry(member, RankOrder.HIGHEST_FIRST);
		return new MemberRankDescriptor(leaderboard, entry.isPresent(), entry.map(RankedMember::rank).orElse(null),
				entry.map(RankedMember::score).orElse(null));
	}

	private static boolean isMember(String member) {
		return !member.isEmpty() && member.length() <= MAX_MEMBER_LENGTH;
	}

	/**
	 * The endpoint's response.
	 * @param leaderboards each leaderboard, by name
	 */
	public record LeaderboardsDescriptor(List<LeaderboardDescriptor> leaderboards) {
	}

	/**
	 * One leaderboard.
	 * @param name its name
	 * @param size its members
	 * @param top its first {@value RedisLeaderboardEndpoint#TOP} members, highest score first
	 * @param error why Redis did not answer
	 */
	public record LeaderboardDescriptor(String name, long size, List<MemberDescriptor> top, @Nullable String error) {
	}

	/**
	 * One of a leaderboard's top members.
	 * @param member its name, {@code null} when not shown
	 * @param score its score
	 * @param rank its rank, from 1, highest score first
	 */
	public record MemberDescriptor(@Nullable String member, double score, long rank) {

		/**
		 * @param member a ranked member
		 * @param shown whether its name is shown
		 * @return its descriptor
		 */
		public static MemberDescriptor of(RankedMember member, boolean shown) {
			return new MemberDescriptor(shown ? member.member() : null, member.score(), member.rank());
		}

	}

	/**
	 * One member's place. The member is not repeated: it is user input, which answers never echo, and the caller
	 * named it.
	 * @param leaderboard the leaderboard
	 * @param ranked whether it is on the leaderboard
	 * @param rank its rank, from 1, highest score first
	 * @param score its score
	 */
	public record MemberRankDescriptor(String leaderboard, boolean ranked, @Nullable Long rank,
			@Nullable Double score) {
	}

}

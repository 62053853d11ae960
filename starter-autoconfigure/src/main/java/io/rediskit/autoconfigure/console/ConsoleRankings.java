package io.rediskit.autoconfigure.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import io.rediskit.autoconfigure.rank.RankProperties;
import io.rediskit.autoconfigure.recent.RecentProperties;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.RankOrder;
import io.rediskit.rank.RankedMember;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.TrendingItem;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * What the console's Leaderboards page shows, as typed views: every leaderboard with its size and top entries,
 * every recent-items list with what trends; one member's rank and one user's recent items on demand. Each read is
 * one or two commands on one key (ZCARD, ZREVRANGE, ZREVRANK), never a scan. Names come from the configuration
 * and the registries; a member or user looked up is data, never echoed in an error.
 */
final class ConsoleRankings {

	/** How many entries of each leaderboard, and trending items of each list, the page shows. */
	static final int TOP = 10;

	/** The longest member or user a lookup takes. */
	static final int MAX_LOOKUP_LENGTH = 1024;

	private final ObjectProvider<LeaderboardRegistry> leaderboards;

	private final ObjectProvider<RankProperties> rankProperties;

	private final ObjectProvider<RecentItemsRegistry> recentItems;

	private final ObjectProvider<RecentProperties> recentProperties;

	ConsoleRankings(ObjectProvider<LeaderboardRegistry> leaderboards, ObjectProvider<RankProperties> rankProperties,
			ObjectProvider<RecentItemsRegistry> recentItems, ObjectProvider<RecentProperties> recentProperties) {
		this.leaderboards = leaderboards;
		this.rankProperties = rankProperties;
		this.recentItems = recentItems;
		this.recentProperties = recentProperties;
	}

	/** @return every leaderboard with its top entries, and every recent-items list with its trending items */
	RankingsView rankings() {
		LeaderboardRegistry boards = this.leaderboards.getIfAvailable();
		List<LeaderboardView> leaderboards = new ArrayList<>();
		if (boards != null) {
			for (String name : leaderboardNames(boards)) {
				try {
					leaderboards.add(new LeaderboardView(name, boards.get(name).size(), boards.get(name).top(TOP), null));
				}
				catch (RuntimeException ex) {
					leaderboards.add(new LeaderboardView(name, 0, List.of(), String.valueOf(ex.getMessage())));
				}
			}
		}
		RecentItemsRegistry recent = this.recentItems.getIfAvailable();
		List<RecentListView> lists = new ArrayList<>();
		if (recent != null) {
			for (String name : recentNames(recent)) {
				try {
					lists.add(new RecentListView(name, recent.get(name).spec().capacity(),
							recent.get(name).trending(TOP), null));
				}
				catch (RuntimeException ex) {
					lists.add(new RecentListView(name, 0, List.of(), String.valueOf(ex.getMessage())));
				}
			}
		}
		return new RankingsView(boards != null, leaderboards, recent != null, lists);
	}

	/**
	 * @param name a leaderboard the page lists
	 * @param member a member, as the application names it
	 * @return the member's rank (highest score first) and score, or {@code ranked=false}
	 * @throws IllegalArgumentException for an unknown leaderboard or a member empty or too long
	 */
	MemberRank rank(String name, String member) {
		LeaderboardRegistry boards = this.leaderboards.getIfAvailable();
		if (boards == null || !leaderboardNames(boards).contains(name)) {
			throw new IllegalArgumentException("No leaderboard is named so");
		}
		requireLookup("member", member);
		Optional<RankedMember> entry = boards.get(name).entry(member, RankOrder.HIGHEST_FIRST);
		return new MemberRank(name, member, entry.isPresent(), entry.map(RankedMember::rank).orElse(null),
				entry.map(RankedMember::score).orElse(null));
	}

	/**
	 * @param name a recent-items list the page lists
	 * @param user a user, as the application names them
	 * @return the user's items, most recent first, up to the list's capacity
	 * @throws IllegalArgumentException for an unknown list or a user empty or too long
	 */
	UserItems recent(String name, String user) {
		RecentItemsRegistry recent = this.recentItems.getIfAvailable();
		if (recent == null || !recentNames(recent).contains(name)) {
			throw new IllegalArgumentException("No recent-items list is named so");
		}
		requireLookup("user", user);
		return new UserItems(name, user, recent.get(name).recent(user, recent.get(name).spec().capacity()));
	}

	private static void requireLookup(String what, String value) {
		if (value.isEmpty() || value.length() > MAX_LOOKUP_LENGTH) {
			throw new IllegalArgumentException(what + " must have 1 to " + MAX_LOOKUP_LENGTH + " characters");
		}
	}

	private TreeSet<String> leaderboardNames(LeaderboardRegistry registry) {
		TreeSet<String> names = new TreeSet<>(registry.names());
		this.rankProperties.ifAvailable((properties) -> names.addAll(properties.getLeaderboards().keySet()));
		return names;
	}

	private TreeSet<String> recentNames(RecentItemsRegistry registry) {
		TreeSet<String> names = new TreeSet<>(registry.names());
		this.recentProperties.ifAvailable((properties) -> names.addAll(properties.getLists().keySet()));
		return names;
	}

	/**
	 * The Leaderboards page.
	 * @param leaderboardsConfigured whether leaderboards are on
	 * @param leaderboards each leaderboard
	 * @param recentConfigured whether recent items are on
	 * @param recentLists each recent-items list
	 */
	record RankingsView(boolean leaderboardsConfigured, List<LeaderboardView> leaderboards, boolean recentConfigured,
			List<RecentListView> recentLists) {
	}

	/**
	 * One leaderboard.
	 * @param name its name
	 * @param size its members
	 * @param top its first {@value ConsoleRankings#TOP} members, highest score first
	 * @param error why Redis did not answer
	 */
	record LeaderboardView(String name, long size, List<RankedMember> top, @Nullable String error) {
	}

	/**
	 * One recent-items list.
	 * @param name its name
	 * @param capacity the items kept per user
	 * @param trending its first {@value ConsoleRankings#TOP} trending items
	 * @param error why Redis did not answer
	 */
	record RecentListView(String name, int capacity, List<TrendingItem> trending, @Nullable String error) {
	}

	/**
	 * One member's place.
	 * @param leaderboard the leaderboard
	 * @param member the member
	 * @param ranked whether it is on the leaderboard
	 * @param rank its rank, from 1, highest score first
	 * @param score its score
	 */
	record MemberRank(String leaderboard, String member, boolean ranked, @Nullable Long rank, @Nullable Double score) {
	}

	/**
	 * One user's recent items.
	 * @param list the list
	 * @param user the user
	 * @param items the items, most recent first
	 */
	record UserItems(String list, String user, List<String> items) {
	}

}

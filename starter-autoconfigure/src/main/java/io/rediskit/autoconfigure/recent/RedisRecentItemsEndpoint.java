package io.rediskit.autoconfigure.recent;

import java.util.List;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.TrendingItem;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitrecentitems}: every configured or used recent-items list with its capacity per
 * user and its {@value #TOP} trending items ({@code GET /actuator/rediskitrecentitems}), and one user's items, most
 * recent first ({@code GET /actuator/rediskitrecentitems/{list}/{user}}). Each read is one command on one key,
 * never a scan. The web console reads the same descriptors.
 */
@Endpoint(id = "rediskitrecentitems")
public class RedisRecentItemsEndpoint {

	/** How many trending items of each list are listed. */
	public static final int TOP = 10;

	/** The longest user a lookup takes. */
	public static final int MAX_USER_LENGTH = 1024;

	private final RecentItemsRegistry registry;

	private final RecentProperties properties;

	/**
	 * @param registry the lists
	 * @param properties the configured lists
	 */
	public RedisRecentItemsEndpoint(RecentItemsRegistry registry, RecentProperties properties) {
		this.registry = registry;
		this.properties = properties;
	}

	/** @return the configured lists and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getLists());
	}

	/** @return every list with its capacity and trending items */
	@ReadOperation
	public RecentListsDescriptor lists() {
		return new RecentListsDescriptor(names().stream().map(this::describe).toList());
	}

	private RecentListDescriptor describe(String name) {
		try {
			RecentItems list = this.registry.get(name);
			return new RecentListDescriptor(name, list.spec().capacity(), list.trending(TOP), null);
		}
		catch (RuntimeException ex) {
			return new RecentListDescriptor(name, 0, List.of(), String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * @param list a list {@link #names() listed}
	 * @param user a user, as the application names them
	 * @return the user's items, most recent first, up to the list's capacity
	 * @throws IllegalArgumentException for a list not listed or a user empty or longer than
	 * {@value #MAX_USER_LENGTH} (neither is echoed: both are user input)
	 */
	@ReadOperation
	public UserItemsDescriptor user(@Selector String list, @Selector String user) {
		if (!names().contains(list)) {
			throw new IllegalArgumentException("No recent-items list is named so");
		}
		if (user.isEmpty() || user.length() > MAX_USER_LENGTH) {
			throw new IllegalArgumentException("user must have 1 to " + MAX_USER_LENGTH + " characters");
		}
		RecentItems items = this.registry.get(list);
		return new UserItemsDescriptor(list, user, items.recent(user, items.spec().capacity()));
	}

	/**
	 * The endpoint's response.
	 * @param lists each list, by name
	 */
	public record RecentListsDescriptor(List<RecentListDescriptor> lists) {
	}

	/**
	 * One recent-items list.
	 * @param name its name
	 * @param capacity the items kept per user
	 * @param trending its first {@value RedisRecentItemsEndpoint#TOP} trending items
	 * @param error why Redis did not answer
	 */
	public record RecentListDescriptor(String name, int capacity, List<TrendingItem> trending, @Nullable String error) {
	}

	/**
	 * One user's recent items.
	 * @param list the list
	 * @param user the user
	 * @param items the items, most recent first
	 */
	public record UserItemsDescriptor(String list, String user, List<String> items) {
	}

}

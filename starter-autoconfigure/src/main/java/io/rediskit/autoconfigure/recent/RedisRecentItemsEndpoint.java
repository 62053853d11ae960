package io.rediskit.autoconfigure.recent;

import java.util.List;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.autoconfigure.support.InvalidEndpointRequest;
import io.rediskit.autoconfigure.support.ShownValues;
import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.TrendingItem;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitrecentitems}: every configured or used recent-items list with its capacity per
 * user and its {@value #TOP} trending items ({@code GET /actuator/rediskitrecentitems}), and one user's items, most
 * recent first ({@code GET /actuator/rediskitrecentitems/{list}/{user}}). Each read is one command on one key,
 * never a scan. The web console reads the same descriptors.
 * <p>
 * Items are the application's values (what a person viewed), so trending items and a user's items show only as
 * {@code management.endpoint.rediskitrecentitems.show-values} says, like Spring Boot's {@code env} endpoint: never by
 * default, {@code when-authorized} to a user in one of {@code management.endpoint.rediskitrecentitems.roles} (any
 * authenticated user when none is set), or {@code always}. Hidden, a trending item keeps its views with {@code item}
 * {@code null}, and a user's items are {@code null} with their {@code count}.
 */
@Endpoint(id = "rediskitrecentitems")
public class RedisRecentItemsEndpoint {

	/** How many trending items of each list are listed. */
	public static final int TOP = 10;

	/** The longest user a lookup takes. */
	public static final int MAX_USER_LENGTH = 1024;

	private static final String USER_LENGTH = "user must have 1 to " + MAX_USER_LENGTH + " characters";

	private final RecentItemsRegistry registry;

	private final RecentProperties properties;

	private final ShownValues shownValues;

	/**
	 * An endpoint that never shows items.
	 * @param registry the lists
	 * @param properties the configured lists
	 */
	public RedisRecentItemsEndpoint(RecentItemsRegistry registry, RecentProperties properties) {
		this(registry, properties, ShownValues.never());
	}

	/**
	 * @param registry the lists
	 * @param properties the configured lists
	 * @param shownValues to whom items show
	 */
	public RedisRecentItemsEndpoint(RecentItemsRegistry registry, RecentProperties properties,
			ShownValues shownValues) {
		this.registry = registry;
		this.properties = properties;
		this.shownValues = shownValues;
	}

	/** @return the configured lists and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getLists());
	}

	/**
	 * @param securityContext who asks, for {@code show-values=when-authorized}
	 * @return every list with its capacity and trending items (the items only if shown to who asks)
	 */
	@ReadOperation
	public RecentListsDescriptor lists(SecurityContext securityContext) {
		return lists(this.shownValues.to(securityContext));
	}

	/**
	 * Every list as {@link #lists(SecurityContext)} describes it, for a reader that decides itself whether items
	 * show (the console, under {@code redis-kit.console.show-payloads}).
	 * @param shown whether items show
	 * @return every list with its capacity and trending items
	 */
	public RecentListsDescriptor lists(boolean shown) {
		return new RecentListsDescriptor(names().stream().map((name) -> describe(name, shown)).toList());
	}

	private RecentListDescriptor describe(String name, boolean shown) {
		try {
			RecentItems list = this.registry.get(name);
			return new RecentListDescriptor(name, list.spec().capacity(),
					list.trending(TOP).stream().map((item) -> TrendingDescriptor.of(item, shown)).toList(), null);
		}
		catch (RuntimeException ex) {
			return new RecentListDescriptor(name, 0, List.of(), String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * One user's items over HTTP or JMX: a list not {@link #names() listed} is answered as Spring Boot's own
	 * endpoints answer a name they do not have (404 over HTTP), a user empty or too long as a bad request (400),
	 * never as a server error.
	 * @param securityContext who asks, for {@code show-values=when-authorized}
	 * @param list a list {@link #names() listed}
	 * @param user a user, as the application names them
	 * @return the user's items, most recent first, up to the list's capacity (the items only if shown to who asks);
	 * {@code null} for a list not listed
	 * @throws org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException
	 * for a user empty or longer than {@value #MAX_USER_LENGTH} (not echoed:
	 * it is user input)
	 */
	@ReadOperation
	public @Nullable UserItemsDescriptor user(SecurityContext securityContext, @Selector String list,
			@Selector String user) {
		if (!names().contains(list)) {
			return null;
		}
		if (!isUser(user)) {
			throw InvalidEndpointRequest.of(USER_LENGTH);
		}
		return user(this.shownValues.to(securityContext), list, user);
	}

	/**
	 * One user's items as {@link #user(SecurityContext, String, String)} describes them, for a reader that decides
	 * itself whether items show (the console).
	 * @param shown whether items show
	 * @param list a list {@link #names() listed}
	 * @param user a user, as the application names them
	 * @return the user's items, most recent first, up to the list's capacity
	 * @throws IllegalArgumentException for a list not listed or a user empty or longer than
	 * {@value #MAX_USER_LENGTH} (neither is echoed: both are user input)
	 */
	public UserItemsDescriptor user(boolean shown, String list, String user) {
		if (!names().contains(list)) {
			throw new IllegalArgumentException("No recent-items list is named so");
		}
		if (!isUser(user)) {
			throw new IllegalArgumentException(USER_LENGTH);
		}
		RecentItems items = this.registry.get(list);
		List<String> recent = items.recent(user, items.spec().capacity());
		return new UserItemsDescriptor(list, shown ? recent : null, recent.size());
	}

	private static boolean isUser(String user) {
		return !user.isEmpty() && user.length() <= MAX_USER_LENGTH;
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
	public record RecentListDescriptor(String name, int capacity, List<TrendingDescriptor> trending,
			@Nullable String error) {
	}

	/**
	 * One trending item.
	 * @param item the item, {@code null} when not shown
	 * @param views its views in the trending period
	 */
	public record TrendingDescriptor(@Nullable String item, long views) {

		/**
		 * @param item a trending item
		 * @param shown whether the item is shown
		 * @return its descriptor
		 */
		public static TrendingDescriptor of(TrendingItem item, boolean shown) {
			return new TrendingDescriptor(shown ? item.item() : null, item.views());
		}

	}

	/**
	 * One user's recent items. The user is not repeated: it is user input, which answers never echo, and the caller
	 * named it.
	 * @param list the list
	 * @param items the items, most recent first, {@code null} when not shown
	 * @param count how many items the user has
	 */
	public record UserItemsDescriptor(String list, @Nullable List<String> items, int count) {
	}

}

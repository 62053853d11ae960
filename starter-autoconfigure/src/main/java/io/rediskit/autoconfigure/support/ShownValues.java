package io.rediskit.autoconfigure.support;

import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;

/**
 * The one decision of every redis-kit endpoint that returns the application's values (a dead letter's payload and
 * headers, a queue group's name, a leaderboard's members, recent items, the names of held locks, semaphores and
 * latches): whether the caller sees them, as {@code management.endpoint.<id>.show-values} and {@code .roles}
 * ({@link EndpointValuesProperties}) say, like Spring Boot's {@code env} endpoint. Hidden by default; over JMX no user is known, so {@code when-authorized} hides
 * them there.
 * <p>
 * The console makes these endpoints without Actuator on the class path and decides itself
 * ({@code redis-kit.console.show-payloads}), so this class loads without Actuator: {@link #never()} uses none of
 * its types, and only the endpoints' operations call {@link #to(SecurityContext)} (checked by
 * {@code ConsoleWithoutActuatorTests}).
 */
public final class ShownValues {

	private static final ShownValues NEVER = new ShownValues(null, Set.of());

	// Null stands for Show.NEVER, which cannot be named where Actuator is absent.
	private final @Nullable Show show;

	private final Set<String> roles;

	private ShownValues(@Nullable Show show, Set<String> roles) {
		this.show = show;
		this.roles = roles;
	}

	/** @return values shown to nobody */
	public static ShownValues never() {
		return NEVER;
	}

	/**
	 * @param show when values are shown
	 * @param roles the roles that see them with {@link Show#WHEN_AUTHORIZED}; empty: every authenticated user
	 * @return the decision
	 */
	public static ShownValues of(Show show, Set<String> roles) {
		return new ShownValues(show, Set.copyOf(roles));
	}

	/**
	 * @param properties an endpoint's {@code show-values} and {@code roles}
	 * @return the decision they describe, as bound now
	 */
	public static ShownValues of(EndpointValuesProperties properties) {
		return of(properties.getShowValues(), properties.getRoles());
	}

	/**
	 * @param securityContext who asks
	 * @return whether they see the values
	 */
	public boolean to(SecurityContext securityContext) {
		return this.show != null && this.show.isShown(securityContext, this.roles);
	}

}

package io.rediskit.autoconfigure.support;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;

/**
 * The settings every redis-kit actuator endpoint that returns the application's values has beyond those Actuator
 * gives every endpoint, shaped like Spring Boot's {@code management.endpoint.env.*}: {@code show-values} and
 * {@code roles} under {@code management.endpoint.<id>}. A value is data the application stored or named a primitive
 * with (a dead letter's payload and headers, a queue group's name, a leaderboard's member, a recent item, the name
 * given in code of a held lock, a semaphore or a latch); counts, sizes, scores, ranks and configured names are not
 * values and always show. Each such endpoint's properties class extends this one, and its endpoint decides through
 * {@link ShownValues}. A value other than {@code never}, {@code when-authorized} or {@code always} fails startup
 * naming the property.
 */
public abstract class EndpointValuesProperties {

	/**
	 * When the endpoint shows the application's values (payloads, headers, items, and group, member, lock, semaphore
	 * and latch names): never, when-authorized (to a user in one of the roles) or always. Otherwise they are null and
	 * only their counts, sizes, scores and configured names show.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles that see values with show-values=when-authorized; when empty, every authenticated user does.
	 */
	private final Set<String> roles = new LinkedHashSet<>();

	/** @return when the endpoint shows the application's values */
	public Show getShowValues() {
		return this.showValues;
	}

	/** @param showValues when the endpoint shows the application's values */
	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	/** @return the roles that see values with {@link Show#WHEN_AUTHORIZED} */
	public Set<String> getRoles() {
		return this.roles;
	}

}

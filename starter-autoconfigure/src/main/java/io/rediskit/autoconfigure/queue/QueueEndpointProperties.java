package io.rediskit.autoconfigure.queue;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the {@code rediskitqueue} actuator endpoint beyond those Actuator gives every endpoint, shaped like
 * Spring Boot's {@code management.endpoint.env.*}: whether the dead letters it lists show their payloads and headers
 * (a message's data: personal data, tenant and user ids). Hidden unless set otherwise.
 */
@ConfigurationProperties("management.endpoint.rediskitqueue")
public class QueueEndpointProperties {

	/**
	 * When dead letters show their payloads and headers: never, when-authorized (to a user in one of the roles) or
	 * always. Otherwise only their size in bytes.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles that see payloads and headers with show-values=when-authorized; when empty, every authenticated user
	 * does.
	 */
	private final Set<String> roles = new LinkedHashSet<>();

	/** @return when dead letters show their payloads and headers */
	public Show getShowValues() {
		return this.showValues;
	}

	/** @param showValues when dead letters show their payloads and headers */
	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	/** @return the roles that see payloads and headers with {@link Show#WHEN_AUTHORIZED} */
	public Set<String> getRoles() {
		return this.roles;
	}

}

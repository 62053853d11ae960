package io.rediskit.autoconfigure;

import java.security.Principal;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;

/**
 * Who asks an endpoint that shows the application's values only as its {@code show-values} and {@code roles} say:
 * the tests of every such endpoint ask as {@link SecurityContext#NONE} (nobody signed in) or as one of these users.
 */
public final class Askers {

	private Askers() {
	}

	/**
	 * @param roles the user's roles, none for a user signed in without any
	 * @return an authenticated user holding those roles
	 */
	public static SecurityContext user(String... roles) {
		Principal principal = () -> "alice";
		Set<String> held = Set.of(roles);
		return new SecurityContext() {

			@Override
			public @Nullable Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return held.contains(role);
			}

		};
	}

}

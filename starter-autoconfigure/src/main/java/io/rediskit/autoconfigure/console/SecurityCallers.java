package io.rediskit.autoconfigure.console;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * The caller as Spring Security authenticated it; loaded only when Spring Security is on the class path
 * ({@link ConsoleAccess#SECURITY_CLASS}); {@link ReactiveSecurityCallers} reads it in WebFlux applications.
 */
final class SecurityCallers {

	private SecurityCallers() {
	}

	/** @return the caller of the current servlet request */
	static Caller current() {
		return of(SecurityContextHolder.getContext().getAuthentication());
	}

	/**
	 * @param request the request
	 * @return the header name and token the page must send with an action, or {@code null} when the application's
	 * filter chain does not check CSRF tokens
	 */
	static @Nullable Map<String, String> csrf(HttpServletRequest request) {
		if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
			return Map.of("header", token.getHeaderName(), "token", token.getToken());
		}
		return null;
	}

	static Caller of(@Nullable Authentication authentication) {
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return Caller.ANONYMOUS;
		}
		Set<String> authorities = authentication.getAuthorities()
			.stream()
			.map(GrantedAuthority::getAuthority)
			.filter(Objects::nonNull)
			.collect(Collectors.toUnmodifiableSet());
		return new Caller(authentication.getName(), true, authorities);
	}

}

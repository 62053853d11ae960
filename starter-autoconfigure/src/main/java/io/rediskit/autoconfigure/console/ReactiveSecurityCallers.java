package io.rediskit.autoconfigure.console;

import java.util.Map;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import reactor.core.publisher.Mono;

import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.web.server.ServerWebExchange;

/**
 * The caller of a WebFlux request as Spring Security authenticated it; loaded only when Spring Security is on the
 * class path ({@link ConsoleAccess#SECURITY_CLASS}).
 */
final class ReactiveSecurityCallers {

	private ReactiveSecurityCallers() {
	}

	/** @return the caller of the current reactive request, anonymous when nothing authenticated it */
	static Mono<Caller> current() {
		return ReactiveSecurityContextHolder.getContext()
			.mapNotNull(SecurityContext::getAuthentication)
			.map(SecurityCallers::of)
			.defaultIfEmpty(Caller.ANONYMOUS);
	}

	/**
	 * @param exchange the exchange
	 * @return the header name and token the page must send with an action; empty when the application's filter
	 * chain does not check CSRF tokens. Subscribing saves the token, as rendering a form would.
	 */
	static Mono<Map<String, String>> csrf(ServerWebExchange exchange) {
		Mono<CsrfToken> token = exchange.getAttribute(CsrfToken.class.getName());
		return (token != null) ? token.map((csrf) -> Map.of("header", csrf.getHeaderName(), "token", csrf.getToken()))
				: Mono.empty();
	}

}

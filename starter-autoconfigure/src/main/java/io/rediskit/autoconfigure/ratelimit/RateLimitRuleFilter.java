package io.rediskit.autoconfigure.ratelimit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.rediskit.autoconfigure.ratelimit.RateLimitRules.Rejection;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimiter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.util.MultiValueMap;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/**
 * Applies {@code redis-kit.rate-limit.web.rules} in Spring MVC applications: a servlet filter, ordered by
 * {@code redis-kit.rate-limit.web.order} (by default after Spring Security's filter chain and before the
 * dispatcher). A request matched by a rule asks the rule's limiter for its permits, on the request's thread;
 * over the limit it is answered {@code 429} as {@link RateLimitExceptionHandler} answers a {@code @RateLimited}
 * method, and goes no further. When Redis cannot answer, the limiter's failure policy decides.
 * <p>
 * The {@code ip} key is {@link HttpServletRequest#getRemoteAddr()}: the container's (with
 * {@code server.forward-headers-strategy=native}) or Spring's {@code ForwardedHeaderFilter}'s (with
 * {@code framework}) reading of the forwarded headers, else the connection's peer; this filter never reads
 * {@code X-Forwarded-For} itself. With success headers on, an allowed request carries the rule's
 * {@code RateLimit-Policy} and {@code RateLimit}, and so does one allowed by a {@code @RateLimited} controller
 * method (through {@link SuccessHeaders}).
 */
final class RateLimitRuleFilter extends OncePerRequestFilter {

	private final RateLimitRules rules;

	RateLimitRuleFilter(RateLimitRules rules) {
		this.rules = rules;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (this.rules.headersOnSuccess()) {
			SuccessHeaders.enable(request);
		}
		PathContainer path = RequestPath.parse(request.getRequestURI(), request.getContextPath())
			.pathWithinApplication();
		RateLimitRule rule = this.rules.match(request.getMethod(), path);
		if (rule == null) {
			chain.doFilter(request, response);
			return;
		}
		RateLimiter limiter = this.rules.limiter(rule);
		RateLimitDecision decision = limiter.tryAcquire(key(rule.key(), request, path), rule.permits());
		if (!decision.allowed()) {
			Rejection rejection = this.rules.reject(limiter, decision, request.getRequestURI());
			response.setStatus(429);
			for (Map.Entry<String, List<String>> header : rejection.headers().headerSet()) {
				for (String value : header.getValue()) {
					response.addHeader(header.getKey(), value);
				}
			}
			response.setContentLength(rejection.body().length);
			response.getOutputStream().write(rejection.body());
			return;
		}
		this.rules.addSuccessHeaders(response::addHeader, limiter, decision);
		chain.doFilter(request, response);
	}

	private static String key(RequestKey key, HttpServletRequest request, PathContainer path) {
		String value;
		if (key instanceof RequestKey.Header header) {
			value = request.getHeader(header.name());
		}
		else if (key instanceof RequestKey.Principal) {
			value = (request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : null;
		}
		else if (key instanceof RequestKey.Session) {
			HttpSession existing = request.getSession(false);
			value = (existing != null) ? existing.getId() : null;
		}
		else if (key instanceof RequestKey.Spel spel) {
			value = spel.evaluate(new RuleRequest(request.getMethod(), path.value(), nonNull(request.getRemoteAddr()),
					request::getHeader, (name) -> queryParam(request, name)));
		}
		else {
			value = request.getRemoteAddr();
		}
		return (value == null || value.isEmpty()) ? RequestKey.MISSING : value;
	}

	// The query string only: getParameter would read a form body.
	private static @Nullable String queryParam(HttpServletRequest request, String name) {
		String query = request.getQueryString();
		if (query == null) {
			return null;
		}
		MultiValueMap<String, String> params = UriComponentsBuilder.newInstance().query(query).build().getQueryParams();
		for (Map.Entry<String, List<String>> param : params.entrySet()) {
			if (UriUtils.decode(param.getKey(), StandardCharsets.UTF_8).equals(name)) {
				String value = param.getValue().get(0);
				return (value != null) ? UriUtils.decode(value, StandardCharsets.UTF_8) : "";
			}
		}
		return null;
	}

	private static String nonNull(@Nullable String value) {
		return (value != null) ? value : "";
	}

}

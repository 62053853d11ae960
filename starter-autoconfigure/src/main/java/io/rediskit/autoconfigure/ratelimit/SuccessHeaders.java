package io.rediskit.autoconfigure.ratelimit;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimiter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The success headers of {@code @RateLimited} controller methods in Spring MVC: {@link RateLimitRuleFilter}
 * marks each request when {@code redis-kit.rate-limit.web.headers.on-success} is on, and
 * {@link RateLimitedInterceptor} tells this class of each allowed call; a call made while a marked request is
 * handled on the thread adds its limiter's {@code RateLimit-Policy} and {@code RateLimit} to the response. Calls
 * outside a web request, and applications without the servlet API, are left alone.
 */
final class SuccessHeaders {

	private static final String ATTRIBUTE = SuccessHeaders.class.getName();

	private static final boolean SERVLET = ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest",
			SuccessHeaders.class.getClassLoader())
			&& ClassUtils.isPresent("org.springframework.web.context.request.RequestContextHolder",
					SuccessHeaders.class.getClassLoader());

	private SuccessHeaders() {
	}

	static void enable(HttpServletRequest request) {
		request.setAttribute(ATTRIBUTE, Boolean.TRUE);
	}

	/**
	 * @param limiter the limiter of an allowed call
	 * @param decision its decision
	 */
	static void allowed(RateLimiter limiter, RateLimitDecision decision) {
		if (SERVLET) {
			Servlet.allowed(limiter, decision);
		}
	}

	// Apart, so that the servlet and web classes are loaded only where they exist.
	private static final class Servlet {

		static void allowed(RateLimiter limiter, RateLimitDecision decision) {
			RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
			if (!(attributes instanceof ServletRequestAttributes servlet)
					|| servlet.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST) == null) {
				return;
			}
			HttpServletResponse response = servlet.getResponse();
			if (response != null && !response.isCommitted()) {
				RateLimitRules.addHeaders(response::addHeader, limiter, decision);
			}
		}

	}

}

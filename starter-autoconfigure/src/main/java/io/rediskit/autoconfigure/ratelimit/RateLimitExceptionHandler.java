package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimitSpec;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link RateLimitExceededException} with {@code 429 Too Many Requests}, for Spring MVC and WebFlux
 * annotated controllers. Ordered last, so the application's own handlers win.
 * <p>
 * The answer carries {@code Retry-After} in whole seconds, rounded up and at least 1, and an RFC 9457 problem
 * detail ({@code application/problem+json}) with title {@code Too Many Requests}, the limiter name and the wait
 * as properties {@code limiter} and {@code retryAfterSeconds}; never the limited key, which is often user data.
 * With headers on, it also carries the fields of the IETF draft <a href=
 * "https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/">draft-ietf-httpapi-ratelimit-headers</a>
 * (drafts 09 and 10, structured fields), all times in whole seconds rounded up:
 *
 * <pre>
 * RateLimit-Policy: "login";q=5;w=900
 * RateLimit: "login";r=0;t=540
 * </pre>
 *
 * {@code q} is the limit and {@code w} the period of the limiter's spec; {@code r} is what the key has left and
 * {@code t} the time until it is back to full capacity. When Redis could not answer and the failure policy
 * rejected the call, the key's usage is unknown: {@code RateLimit} is left out, and {@code Retry-After} is the
 * policy's one second.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

	/** Name of the header describing the quota policy. */
	public static final String POLICY_HEADER = "RateLimit-Policy";

	/** Name of the header describing what the key has left. */
	public static final String RATE_LIMIT_HEADER = "RateLimit";

	private final boolean headers;

	/**
	 * @param headers whether to add the {@code RateLimit-Policy} and {@code RateLimit} headers
	 */
	public RateLimitExceptionHandler(boolean headers) {
		this.headers = headers;
	}

	/**
	 * @param ex the exception
	 * @return the 429 response
	 */
	@ExceptionHandler(RateLimitExceededException.class)
	public ResponseEntity<ProblemDetail> rateLimitExceeded(RateLimitExceededException ex) {
		return tooManyRequests(ex, this.headers);
	}

	/**
	 * The 429 answer to a rejection, as this handler and the filters of {@code redis-kit.rate-limit.web.rules}
	 * give it.
	 * @param ex the rejection
	 * @param rateLimitHeaders whether to add the {@code RateLimit-Policy} and {@code RateLimit} headers
	 * @return the response
	 */
	static ResponseEntity<ProblemDetail> tooManyRequests(RateLimitExceededException ex, boolean rateLimitHeaders) {
		RateLimitDecision decision = ex.getDecision();
		long retryAfter = Math.max(1, ceilSeconds(decision.retryAfter()));
		String seconds = retryAfter + ((retryAfter == 1) ? " second." : " seconds.");
		// Refused by the fail-closed policy, nothing was counted: say so rather than "exceeded".
		String detail = decision.fromFailurePolicy()
				? "Rate limit '" + ex.getLimiterName() + "' cannot be checked now; retry after " + seconds
				: "Rate limit '" + ex.getLimiterName() + "' exceeded; retry after " + seconds;
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
		problem.setTitle("Too Many Requests");
		problem.setProperty("limiter", ex.getLimiterName());
		problem.setProperty("retryAfterSeconds", retryAfter);
		HttpHeaders headers = new HttpHeaders();
		headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
		if (rateLimitHeaders) {
			headers.set(POLICY_HEADER, policy(ex.getLimiterName(), ex.getSpec()));
			if (!decision.fromFailurePolicy()) {
				headers.set(RATE_LIMIT_HEADER, rateLimit(ex.getLimiterName(), decision));
			}
		}
		return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).headers(headers).body(problem);
	}

	/**
	 * @param limiterName the limiter's name
	 * @param spec its spec
	 * @return the {@code RateLimit-Policy} field of the limiter, such as {@code "login";q=5;w=900}
	 */
	static String policy(String limiterName, RateLimitSpec spec) {
		return sfString(limiterName) + ";q=" + spec.limit() + ";w=" + ceilSeconds(spec.period());
	}

	/**
	 * @param limiterName the limiter's name
	 * @param decision a decision of Redis (not of the failure policy, which knows no usage)
	 * @return the {@code RateLimit} field of the decision, such as {@code "login";r=0;t=540}
	 */
	static String rateLimit(String limiterName, RateLimitDecision decision) {
		return sfString(limiterName) + ";r=" + decision.remaining() + ";t=" + ceilSeconds(decision.resetAfter());
	}

	static long ceilSeconds(Duration duration) {
		return duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0);
	}

	// A structured-field string (RFC 9651): limiter names are plain, but quote what must be quoted anyway.
	private static String sfString(String value) {
		StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\');
			}
			quoted.append(c);
		}
		return quoted.append('"').toString();
	}

}

package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.LockNotAcquiredException;
import io.rediskit.support.RedisFailures;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link LockNotAcquiredException} with an RFC 9457 problem detail ({@code application/problem+json}),
 * for Spring MVC and WebFlux annotated controllers. Ordered last, so the application's own handlers win.
 * <ul>
 * <li>{@code 409 Conflict}, title {@code Lock not acquired}: another caller held the lock for the whole wait.
 * <li>{@code 503 Service Unavailable}, title {@code Lock unavailable}, with {@code Retry-After: 1}: Redis could not
 * be reached while acquiring (the exception's cause is a failure that
 * {@link RedisFailures#isUnavailable(Throwable)} accepts, as {@code @DistributedLock} methods report it). The
 * Redis failure's message is not shown.
 * </ul>
 * The body's {@code lock} property is the lock's group: the {@code name} of {@code @DistributedLock}, which the
 * application wrote, never the key, which is often user data. A lock name is {@code group:key}, so the group is
 * what comes before the first {@code :}; a group longer than a configured name may be (64 characters) is left
 * out.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

	/** What {@code Retry-After} asks of a client while Redis cannot be reached: nothing better is known. */
	public static final long UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

	private static final int MAX_GROUP_LENGTH = 64;

	/**
	 * @param ex the exception
	 * @return the 409 response, or 503 when Redis could not be reached
	 */
	@ExceptionHandler(LockNotAcquiredException.class)
	public ResponseEntity<ProblemDetail> lockNotAcquired(LockNotAcquiredException ex) {
		Throwable cause = ex.getCause();
		boolean unavailable = cause != null && !(cause instanceof InterruptedException)
				&& RedisFailures.isUnavailable(cause);
		ProblemDetail problem;
		HttpHeaders headers = new HttpHeaders();
		if (unavailable) {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
					"The lock service is unavailable. Try again later.");
			problem.setTitle("Lock unavailable");
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(UNAVAILABLE_RETRY_AFTER_SECONDS));
		}
		else {
			problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
					"The resource is busy: another request holds its lock. Try again later.");
			problem.setTitle("Lock not acquired");
		}
		String group = group(ex.getLockName());
		if (group != null) {
			problem.setProperty("lock", group);
		}
		return ResponseEntity.status(problem.getStatus()).headers(headers).body(problem);
	}

	private static @Nullable String group(String lockName) {
		int colon = lockName.indexOf(':');
		String group = (colon >= 0) ? lockName.substring(0, colon) : lockName;
		return (!group.isEmpty() && group.length() <= MAX_GROUP_LENGTH) ? group : null;
	}

}

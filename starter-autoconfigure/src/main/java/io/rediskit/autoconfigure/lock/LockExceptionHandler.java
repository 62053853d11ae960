package io.rediskit.autoconfigure.lock;

import io.rediskit.lock.LockNotAcquiredException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link LockNotAcquiredException} with {@code 409 Conflict} and an RFC 9457 problem detail, for
 * Spring MVC and WebFlux controllers. Ordered last, so the application's own handlers win.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class LockExceptionHandler {

	/**
	 * @param ex the exception
	 * @return the 409 response
	 */
	@ExceptionHandler(LockNotAcquiredException.class)
	public ResponseEntity<ProblemDetail> lockNotAcquired(LockNotAcquiredException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"The resource is busy: another request holds its lock. Try again later.");
		problem.setTitle("Lock not acquired");
		problem.setProperty("lock", ex.getLockName());
		return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
	}

}

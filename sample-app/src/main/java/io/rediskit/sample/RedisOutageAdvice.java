package io.rediskit.sample;

import io.rediskit.support.RedisFailures;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The sample's own Redis calls (order state through {@code StringRedisTemplate}, which redis-kit's availability
 * gate does not cover) failing in an outage: {@code 503} with {@code Retry-After: 1}, as redis-kit answers a lock
 * it could not take, instead of a {@code 500} and a stack trace per request. Errors that are not outages (a
 * {@code WRONGTYPE}) stay {@code 500}. The driver's message (host, port) is not shown.
 */
@RestControllerAdvice
class RedisOutageAdvice {

	@ExceptionHandler(DataAccessException.class)
	ResponseEntity<ProblemDetail> redisUnavailable(DataAccessException ex) {
		if (!RedisFailures.isUnavailable(ex)) {
			// Rethrown as it is: Spring MVC goes on to its default answer, a 500.
			throw ex;
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
				"Redis cannot be reached now; retry after 1 second.");
		problem.setTitle("Redis unavailable");
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
	}

}

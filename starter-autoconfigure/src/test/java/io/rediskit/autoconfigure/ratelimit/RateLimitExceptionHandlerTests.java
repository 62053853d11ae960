package io.rediskit.autoconfigure.ratelimit;

import java.time.Duration;

import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimitSpec;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/** The 429 answer, header by header. */
class RateLimitExceptionHandlerTests {

	private static final RateLimitSpec SPEC = RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 10,
			Duration.ofMillis(90_500));

	private final RateLimitExceptionHandler handler = new RateLimitExceptionHandler(true);

	@Test
	void timesAreWholeSecondsRoundedUp() {
		ResponseEntity<ProblemDetail> response = this.handler.rateLimitExceeded(exceeded(
				new RateLimitDecision(Outcome.REJECTED, 10, 0, Duration.ofMillis(2_001), Duration.ofMillis(59_999))));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("3");
		assertThat(response.getHeaders().getFirst("RateLimit-Policy")).isEqualTo("\"search\";q=10;w=91");
		assertThat(response.getHeaders().getFirst("RateLimit")).isEqualTo("\"search\";r=0;t=60");
		ProblemDetail problem = response.getBody();
		assertThat(problem.getStatus()).isEqualTo(429);
		assertThat(problem.getTitle()).isEqualTo("Too Many Requests");
		assertThat(problem.getDetail()).isEqualTo("Rate limit 'search' exceeded; retry after 3 seconds.");
		assertThat(problem.getProperties()).containsEntry("limiter", "search").containsEntry("retryAfterSeconds", 3L);
	}

	@Test
	void retryAfterIsAtLeastOneSecond() {
		ResponseEntity<ProblemDetail> response = this.handler.rateLimitExceeded(
				exceeded(new RateLimitDecision(Outcome.REJECTED, 10, 3, Duration.ZERO, Duration.ofSeconds(5))));
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(response.getHeaders().getFirst("RateLimit")).isEqualTo("\"search\";r=3;t=5");
		assertThat(response.getBody().getDetail()).endsWith("retry after 1 second.");
	}

	@Test
	void aFailurePolicyRejectionHasNoUsageToReport() {
		ResponseEntity<ProblemDetail> response = this.handler
			.rateLimitExceeded(exceeded(RateLimitDecision.ofFailure(FailurePolicy.FAIL_CLOSED, 10)));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("1");
		assertThat(response.getHeaders().getFirst("RateLimit-Policy")).isEqualTo("\"search\";q=10;w=91");
		assertThat(response.getHeaders().containsHeader("RateLimit")).isFalse();
		// Nothing was counted: the limit was not exceeded, it could not be checked.
		assertThat(response.getBody().getDetail())
			.isEqualTo("Rate limit 'search' cannot be checked now; retry after 1 second.");
	}

	@Test
	void headersCanBeLeftOut() {
		ResponseEntity<ProblemDetail> response = new RateLimitExceptionHandler(false).rateLimitExceeded(
				exceeded(new RateLimitDecision(Outcome.REJECTED, 10, 0, Duration.ofSeconds(4), Duration.ofSeconds(9))));
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("4");
		assertThat(response.getHeaders().containsHeader("RateLimit-Policy")).isFalse();
		assertThat(response.getHeaders().containsHeader("RateLimit")).isFalse();
	}

	private static RateLimitExceededException exceeded(RateLimitDecision decision) {
		return new RateLimitExceededException("search", SPEC, decision);
	}

}

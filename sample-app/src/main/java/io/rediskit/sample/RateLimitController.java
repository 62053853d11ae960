package io.rediskit.sample;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import io.rediskit.autoconfigure.ratelimit.RateLimitExceptionHandler;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitExceededException;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code GET /api/ratelimit/<algorithm>}: one endpoint per algorithm, each limited to 5 calls per 10 seconds per
 * client (the {@code X-Client} header) by its own limiter of {@code application.yml}. Over the limit the
 * starter answers 429 with {@code Retry-After}, the rate-limit headers and a problem detail.
 * <p>
 * Also {@code /api/ratelimit/programmatic}, a limiter created and asked in code, which sends the rate-limit
 * headers on every answer, {@code /api/ratelimit/async}, a limiter asked without blocking the request thread,
 * and {@code /api/ratelimit/fallback}, which answers from a fallback method instead of 429.
 */
@RestController
@RequestMapping("/api/ratelimit")
public class RateLimitController {

	static final String CLIENT = "X-Client";

	static final String ANONYMOUS = "anonymous";

	private final RateLimiter programmatic;

	private final RateLimiter async;

	RateLimitController(RateLimiterRegistry rateLimiters) {
		// Created in code instead of configured: a bucket of 10 tokens, refilled at 5 per 10 seconds.
		this.programmatic = rateLimiters.create("api-programmatic",
				RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 5, Duration.ofSeconds(10)).withBurst(10));
		this.async = rateLimiters.create("api-async", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofSeconds(10)));
	}

	@RateLimited(name = "api-sliding-log", key = "#client")
	@GetMapping("/sliding-log")
	public ApiAnswer slidingLog(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-sliding-log", client);
	}

	@RateLimited(name = "api-sliding-window", key = "#client")
	@GetMapping("/sliding-window")
	public ApiAnswer slidingWindow(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-sliding-window", client);
	}

	@RateLimited(name = "api-fixed-window", key = "#client")
	@GetMapping("/fixed-window")
	public ApiAnswer fixedWindow(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-fixed-window", client);
	}

	@RateLimited(name = "api-token-bucket", key = "#client")
	@GetMapping("/token-bucket")
	public ApiAnswer tokenBucket(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-token-bucket", client);
	}

	@RateLimited(name = "api-gcra", key = "#client")
	@GetMapping("/gcra")
	public ApiAnswer gcra(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-gcra", client);
	}

	/**
	 * Over the limit, {@link #degraded(String, RateLimitExceededException)} answers instead, with 200.
	 * @param client the client
	 * @return the answer of the handler or of the fallback
	 */
	@RateLimited(name = "api-fallback", key = "#client", fallbackMethod = "degraded")
	@GetMapping("/fallback")
	public ApiAnswer fallback(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return ApiAnswer.handled("api-fallback", client);
	}

	// Same parameters plus the exception, same return type; private is fine, it is called on this object.
	private ApiAnswer degraded(String client, RateLimitExceededException exceeded) {
		long retryAfterSeconds = Math.max(1, ceilSeconds(exceeded.getDecision().retryAfter()));
		return new ApiAnswer(exceeded.getLimiterName(), client, "fallback", retryAfterSeconds);
	}

	/**
	 * Asks the limiter directly for {@code permits} permits and returns its decision, with the rate-limit
	 * headers on the 200 answer too. A rejection is thrown as {@link RateLimitExceededException}, so the starter
	 * answers it as it answers {@code @RateLimited}.
	 * @param client the client
	 * @param permits permits this call costs, 1 to 10
	 * @return the decision
	 */
	@GetMapping("/programmatic")
	public ResponseEntity<DecisionView> programmatic(
			@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client,
			@RequestParam(defaultValue = "1") int permits) {
		RateLimitSpec spec = this.programmatic.spec();
		if (permits < 1 || permits > spec.capacity()) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
					"permits must be between 1 and " + spec.capacity());
		}
		RateLimitDecision decision = this.programmatic.tryAcquire(client, permits);
		if (!decision.allowed()) {
			throw new RateLimitExceededException(this.programmatic.name(), spec, decision);
		}
		HttpHeaders headers = new HttpHeaders();
		String policy = "\"" + this.programmatic.name() + "\"";
		headers.set(RateLimitExceptionHandler.POLICY_HEADER,
				policy + ";q=" + spec.limit() + ";w=" + ceilSeconds(spec.period()));
		// Allowed by the failure policy, the key's usage is unknown: no RateLimit header then, as on a 429.
		if (!decision.fromFailurePolicy()) {
			headers.set(RateLimitExceptionHandler.RATE_LIMIT_HEADER,
					policy + ";r=" + decision.remaining() + ";t=" + ceilSeconds(decision.resetAfter()));
		}
		return ResponseEntity.ok().headers(headers).body(DecisionView.of(this.programmatic.name(), decision));
	}

	/**
	 * Asks a limiter without blocking the request thread: Spring MVC releases it while Redis decides, and the
	 * answer is written when the stage completes. A rejection completes the stage with
	 * {@link RateLimitExceededException}, which the starter answers with 429 as for {@code @RateLimited}.
	 * @param client the client
	 * @return the decision, when Redis has made it
	 */
	@GetMapping("/async")
	public CompletionStage<DecisionView> async(@RequestHeader(name = CLIENT, defaultValue = ANONYMOUS) String client) {
		return this.async.tryAcquireAsync(client).thenApply((decision) -> {
			if (!decision.allowed()) {
				throw new RateLimitExceededException(this.async.name(), this.async.spec(), decision);
			}
			return DecisionView.of(this.async.name(), decision);
		});
	}

	private static long ceilSeconds(Duration duration) {
		return duration.getSeconds() + ((duration.getNano() > 0) ? 1 : 0);
	}

}

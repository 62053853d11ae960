package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A named rate limit applied per key (a user, a client IP, an API token...). Each decision is one script call
 * on Redis, timed by the server's clock, so every instance of the application shares one count per key and
 * skewed client clocks change nothing. Thread-safe.
 * <p>
 * When Redis cannot answer within the command timeout, the limiter's {@link FailurePolicy} decides, and the
 * decision says so. Other Redis errors (a wrong type at the key, a missing permission) are thrown as Spring's
 * {@link org.springframework.dao.DataAccessException}s: they are misconfigurations, not outages.
 */
public interface RateLimiter {

	/** @return the limiter's name */
	String name();

	/** @return the spec in force now */
	RateLimitSpec spec();

	/**
	 * Asks for one permit.
	 * @param key what is limited, such as a user name; any string, used as data
	 * @return the decision
	 */
	default RateLimitDecision tryAcquire(String key) {
		return tryAcquire(key, 1);
	}

	/**
	 * Asks for permits, all or none.
	 * @param key what is limited
	 * @param permits how many, from 1 up to the spec's {@link RateLimitSpec#capacity() capacity}
	 * @return the decision
	 * @throws IllegalArgumentException if {@code permits} is below 1 or could never be granted
	 */
	RateLimitDecision tryAcquire(String key, int permits);

	/**
	 * Asks for one permit without blocking the calling thread.
	 * @param key what is limited
	 * @return the decision, completed on the driver's thread; the failure policy applies as in
	 * {@link #tryAcquire(String)}
	 */
	default CompletionStage<RateLimitDecision> tryAcquireAsync(String key) {
		return tryAcquireAsync(key, 1);
	}

	/**
	 * Asks for permits, all or none, without blocking the calling thread: one script call whose reply
	 * completes the stage. An outage gives the failure policy's decision, as in {@link #tryAcquire(String, int)};
	 * other Redis errors complete the stage exceptionally with a {@code DataAccessException}.
	 * @param key what is limited
	 * @param permits how many, from 1 up to the spec's {@link RateLimitSpec#capacity() capacity}
	 * @return the decision
	 * @throws IllegalArgumentException if {@code permits} is below 1 or could never be granted
	 */
	CompletionStage<RateLimitDecision> tryAcquireAsync(String key, int permits);

	/**
	 * Asks for permits, waiting for them as long as the wait stays within {@code maxWait}. Each rejection says
	 * how long until the permits could be granted; the call sleeps that long and asks again, so it does not
	 * spin. It gives up at once, returning the rejection, when the next wait would end after {@code maxWait},
	 * or when the failure policy answered (Redis is unreachable). It has no asynchronous form, since its wait is a
	 * sleep: without a thread, call {@link #tryAcquireAsync(String, int)} and ask again after the rejection's
	 * {@code retryAfter} on a scheduler of your own.
	 * @param key what is limited
	 * @param permits how many
	 * @param maxWait the longest time to wait; zero for a single attempt
	 * @return the allowed decision, or the last rejection
	 * @throws InterruptedException if the thread is interrupted while it waits
	 * @throws IllegalArgumentException if {@code permits} is out of range or {@code maxWait} negative
	 */
	RateLimitDecision acquire(String key, int permits, Duration maxWait) throws InterruptedException;

	/**
	 * Reads a key's state without taking a permit nor writing anything: one read-only script call on the server's
	 * clock, which answers what {@link #tryAcquire(String)} would be told at the same moment about the limit, the
	 * permits remaining, the wait for one permit and the time until the key is back to full capacity. A call that
	 * follows sees the same state or, as time passes, a fuller one, unless other calls take permits in between.
	 * It is not a decision: it is not counted in the metrics, and when Redis cannot answer the failure policy does
	 * not apply; the call fails with a {@code DataAccessException}.
	 * @param key what is limited
	 * @return the key's state now
	 */
	RateLimitState peek(String key);

	/**
	 * {@link #peek(String)} without blocking the calling thread.
	 * @param key what is limited
	 * @return the key's state now, completed on the driver's thread
	 */
	CompletionStage<RateLimitState> peekAsync(String key);

	/**
	 * Forgets a key's usage, giving it full capacity again; for example after a successful login.
	 * @param key what is limited
	 */
	void reset(String key);

	/**
	 * {@link #reset(String)} without blocking the calling thread.
	 * @param key what is limited
	 * @return completed when the key's usage is gone
	 */
	CompletionStage<@Nullable Void> resetAsync(String key);

}

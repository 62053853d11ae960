package io.rediskit.support;

import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * A call refused at once, without asking Redis, because a recent call found Redis unavailable and no
 * {@code PING} has been answered since ({@link RedisAvailability}). A {@link RedisConnectionFailureException},
 * so that {@link RedisFailures#isUnavailable(Throwable)} recognises it and every primitive applies the policy it
 * documents for an outage, as it would after a command timeout, only without the wait.
 */
public class RedisUnavailableException extends RedisConnectionFailureException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message why Redis is considered unavailable, and since when
	 */
	public RedisUnavailableException(String message) {
		super(message);
	}

}

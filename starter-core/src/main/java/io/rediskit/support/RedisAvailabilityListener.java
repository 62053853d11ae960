package io.rediskit.support;

import java.time.Duration;

/**
 * Hears what {@link RedisAvailability} sees: Redis found unavailable, a call refused without asking it, Redis
 * answering again. Methods are called on the thread that saw the event (a caller's, the driver's or the
 * probe's) and must be quick; a listener that throws is logged and ignored. No tag depends on a call.
 */
public interface RedisAvailabilityListener {

	/** A listener that ignores everything. */
	RedisAvailabilityListener NONE = new RedisAvailabilityListener() {
	};

	/**
	 * A call found Redis unavailable: calls are refused at once from now on until a {@code PING} is answered.
	 * @param cause the failure of that call
	 */
	default void onUnavailable(Throwable cause) {
	}

	/**
	 * A call was refused without asking Redis, since Redis is considered unavailable.
	 */
	default void onRefused() {
	}

	/**
	 * A {@code PING} was answered: calls go to Redis again.
	 * @param unavailableFor how long calls were refused
	 */
	default void onAvailable(Duration unavailableFor) {
	}

}

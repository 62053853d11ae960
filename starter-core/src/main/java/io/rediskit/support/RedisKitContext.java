package io.rediskit.support;

import org.jspecify.annotations.Nullable;

/**
 * What every context of a redis-kit observation tells its {@link RedisKitObservationConvention}: which observation
 * it is, the configured name, the one detail and the outcome, set when the observed step ends. Implemented by
 * {@link RedisKitObservationContext}, {@link RedisKitSenderContext} and {@link RedisKitReceiverContext}.
 */
public interface RedisKitContext {

	/** The outcome before the observed step told its own. */
	String UNKNOWN = "unknown";

	/** @return which observation this is */
	RedisKitObservation observation();

	/** @return the configured name (of the lock group, limiter, cache, queue), never a per-call key */
	String configuredName();

	/** @return the value of {@link RedisKitObservation#detail()}'s tag, or {@code null} */
	@Nullable String detail();

	/** @return how the observed step ended, {@link #UNKNOWN} until it did */
	String outcome();

	/** @param outcome how the observed step ended, one of the values its observation documents */
	void outcome(String outcome);

}

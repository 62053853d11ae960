package io.rediskit.support;

import org.jspecify.annotations.Nullable;

/**
 * What every {@link RedisKitContext} holds, written once: the three contexts extend different Micrometer types
 * ({@code Observation.Context}, {@code SenderContext}, {@code ReceiverContext}, which Micrometer Tracing's
 * propagating handlers recognise by type), so they cannot share a superclass and delegate to this instead.
 */
final class ContextState {

	private final RedisKitObservation observation;

	private final String configuredName;

	private volatile @Nullable String detail;

	private volatile String outcome = RedisKitContext.UNKNOWN;

	ContextState(RedisKitObservation observation, String configuredName, @Nullable String detail) {
		this.observation = observation;
		this.configuredName = configuredName;
		this.detail = detail;
	}

	RedisKitObservation observation() {
		return this.observation;
	}

	String configuredName() {
		return this.configuredName;
	}

	@Nullable String detail() {
		return this.detail;
	}

	void detail(@Nullable String detail) {
		this.detail = detail;
	}

	String outcome() {
		return this.outcome;
	}

	void outcome(String outcome) {
		this.outcome = outcome;
	}

}

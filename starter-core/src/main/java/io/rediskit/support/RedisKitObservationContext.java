package io.rediskit.support;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** The context of a redis-kit observation that is not a message's: a lock's wait or hold, a decision, a lookup. */
public class RedisKitObservationContext extends Observation.Context implements RedisKitContext {

	private final ContextState state;

	/**
	 * @param observation which observation
	 * @param configuredName the configured name
	 * @param detail the detail tag's value, or {@code null}
	 */
	public RedisKitObservationContext(RedisKitObservation observation, String configuredName, @Nullable String detail) {
		this.state = new ContextState(observation, configuredName, detail);
		setName(observation.getName());
	}

	@Override
	public RedisKitObservation observation() {
		return this.state.observation();
	}

	@Override
	public String configuredName() {
		return this.state.configuredName();
	}

	@Override
	public @Nullable String detail() {
		return this.state.detail();
	}

	/** @param detail the detail tag's value, when the observed step learns it only as it ends (a cache's tier) */
	public void detail(@Nullable String detail) {
		this.state.detail(detail);
	}

	@Override
	public String outcome() {
		return this.state.outcome();
	}

	@Override
	public void outcome(String outcome) {
		this.state.outcome(outcome);
	}

}

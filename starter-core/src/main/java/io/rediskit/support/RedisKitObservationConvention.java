package io.rediskit.support;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * How redis-kit's observations are named and tagged. Implement it (usually by extending
 * {@link DefaultRedisKitObservationConvention}) and declare it as a bean to change the tags or names of every
 * redis-kit observation; the starter hands it to every registry. A convention that returns no name
 * ({@code null}, as the default does) keeps each {@link RedisKitObservation}'s own; one that returns a name gives
 * it to every redis-kit observation.
 */
public interface RedisKitObservationConvention extends ObservationConvention<Observation.Context> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RedisKitContext;
	}

}

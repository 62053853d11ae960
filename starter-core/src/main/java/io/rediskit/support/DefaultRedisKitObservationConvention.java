package io.rediskit.support;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The tags and names of {@link RedisKitObservation}: the observation's own name, the contextual name (the span's)
 * {@code "<what> <configured name>"} such as {@code "lock wait orders"}, or for a structure's call
 * {@code "<what> <operation> <configured name>"} such as {@code "counter add visitors"}, and as low-cardinality tags the configured
 * name, the outcome and the observation's detail when it has one. No high-cardinality tag: a per-call key (a lock's
 * key, a limiter's key, a message id) is kept out of spans too, since it may be personal data.
 */
public class DefaultRedisKitObservationConvention implements RedisKitObservationConvention {

	/** The convention the registries use when given none. */
	public static final DefaultRedisKitObservationConvention INSTANCE = new DefaultRedisKitObservationConvention();

	@Override
	public @Nullable String getName() {
		// The context is named by its RedisKitObservation: one convention serves every observation.
		return null;
	}

	@Override
	public String getContextualName(Observation.Context context) {
		RedisKitContext observed = (RedisKitContext) context;
		if (observed.observation().detail() == RedisKitObservation.Keys.OPERATION && observed.detail() != null) {
			return observed.observation().getContextualName() + " " + observed.detail() + " "
					+ observed.configuredName();
		}
		return observed.observation().getContextualName() + " " + observed.configuredName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
		RedisKitContext observed = (RedisKitContext) context;
		RedisKitObservation.Keys detail = observed.observation().detail();
		KeyValues values = KeyValues.of(RedisKitObservation.Keys.NAME.withValue(observed.configuredName()),
				RedisKitObservation.Keys.OUTCOME.withValue(observed.outcome()));
		if (detail != null) {
			String value = observed.detail();
			values = values.and(detail.withValue((value != null) ? value : "none"));
		}
		return values;
	}

}

package io.rediskit.support;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a message handled ({@link RedisKitObservation#QUEUE_HANDLE}): its carrier is the message's headers,
 * from which Micrometer Tracing's propagating handler reads the enqueuing trace context, so that the handling span
 * is a child of the enqueuing one, in its trace.
 */
public class RedisKitReceiverContext extends ReceiverContext<Map<String, String>> implements RedisKitContext {

	private final RedisKitObservation observation;

	private final String configuredName;

	private volatile String outcome = UNKNOWN;

	/**
	 * @param observation which observation
	 * @param configuredName the queue's name
	 * @param headers the message's headers, as stored
	 */
	public RedisKitReceiverContext(RedisKitObservation observation, String configuredName, Map<String, String> headers) {
		super(Map::get, Kind.CONSUMER);
		this.observation = observation;
		this.configuredName = configuredName;
		setCarrier(headers);
		setRemoteServiceName("redis");
		setName(observation.getName());
	}

	@Override
	public RedisKitObservation observation() {
		return this.observation;
	}

	@Override
	public String configuredName() {
		return this.configuredName;
	}

	@Override
	public @Nullable String detail() {
		return null;
	}

	@Override
	public String outcome() {
		return this.outcome;
	}

	@Override
	public void outcome(String outcome) {
		this.outcome = outcome;
	}

}

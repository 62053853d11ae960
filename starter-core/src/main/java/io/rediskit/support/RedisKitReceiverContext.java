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

	private final ContextState state;

	/**
	 * @param observation which observation
	 * @param configuredName the queue's name
	 * @param headers the message's headers, as stored
	 */
	public RedisKitReceiverContext(RedisKitObservation observation, String configuredName, Map<String, String> headers) {
		super(Map::get, Kind.CONSUMER);
		this.state = new ContextState(observation, configuredName, null);
		setCarrier(headers);
		setRemoteServiceName("redis");
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

	@Override
	public String outcome() {
		return this.state.outcome();
	}

	@Override
	public void outcome(String outcome) {
		this.state.outcome(outcome);
	}

}

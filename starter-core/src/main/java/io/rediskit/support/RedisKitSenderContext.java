package io.rediskit.support;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of a message sent ({@link RedisKitObservation#QUEUE_ENQUEUE}): its carrier is the message's headers,
 * into which Micrometer Tracing's propagating handler writes the trace context ({@code traceparent} with the W3C
 * propagator) when the observation starts.
 */
public class RedisKitSenderContext extends SenderContext<Map<String, String>> implements RedisKitContext {

	private final ContextState state;

	/**
	 * @param observation which observation
	 * @param configuredName the queue's name
	 * @param detail the detail tag's value (an enqueue's source), or {@code null}
	 * @param headers the message's headers, writable: the trace context is added to them
	 */
	public RedisKitSenderContext(RedisKitObservation observation, String configuredName, @Nullable String detail,
			Map<String, String> headers) {
		super(Map::put, Kind.PRODUCER);
		this.state = new ContextState(observation, configuredName, detail);
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

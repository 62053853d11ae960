package io.rediskit.autoconfigure.support;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * Actuator's {@code 400} answer for an endpoint's bad input, made apart from the endpoints: an endpoint class that
 * threw Actuator's exception in its own methods would not load without Actuator on the class path (the JVM's
 * verifier loads an exception class a method throws), and the console reads the endpoints' descriptors without
 * Actuator. Loaded only when an endpoint answers bad input, which only Actuator calls it for.
 */
public final class InvalidEndpointRequest {

	private InvalidEndpointRequest() {
	}

	/**
	 * @param message says what is wrong, without the input (user input is never echoed)
	 * @return the exception to throw: Actuator answers it with {@code 400} and the message
	 */
	public static RuntimeException of(String message) {
		return new InvalidEndpointRequestException(message, message);
	}

}

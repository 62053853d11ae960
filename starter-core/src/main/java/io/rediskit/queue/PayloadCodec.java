package io.rediskit.queue;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payloads as JSON through the application's {@link JsonMapper}: no Java serialization, and a mapper with
 * default typing is refused, so the JSON of a payload can never name a class to load. A payload type that
 * declares polymorphic typing itself ({@code @JsonTypeInfo}) is the application's choice.
 */
final class PayloadCodec {

	private final JsonMapper mapper;

	PayloadCodec(JsonMapper mapper) {
		if (mapper.deserializationConfig().getDefaultTyper(mapper.constructType(Object.class)) != null) {
			throw new IllegalArgumentException("The JsonMapper for queue payloads must not have default typing "
					+ "enabled: a payload could then name any class to instantiate");
		}
		this.mapper = mapper;
	}

	byte[] encode(Object payload) {
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Cannot write the payload (" + payload.getClass().getName()
					+ ") as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * @return the payload
	 * @throws UndecodablePayloadException saying why
	 */
	<T> T decode(byte[] payload, Class<T> type, long maxSize) {
		if (payload.length > maxSize) {
			throw new UndecodablePayloadException("payload of " + payload.length + " bytes is larger than the "
					+ maxSize + " bytes allowed");
		}
		try {
			T value = this.mapper.readValue(payload, type);
			if (value == null) {
				throw new UndecodablePayloadException("payload is JSON null");
			}
			return value;
		}
		catch (JacksonException ex) {
			throw new UndecodablePayloadException("payload cannot be read as " + type.getName() + ": "
					+ ex.getOriginalMessage());
		}
	}

	/** A stored payload is not a JSON value of the queue's type. */
	static final class UndecodablePayloadException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UndecodablePayloadException(String reason) {
			super(reason, null, false, false);
		}

	}

}

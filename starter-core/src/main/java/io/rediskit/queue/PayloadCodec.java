package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Payloads as JSON through the application's {@link JsonMapper}: no Java serialization, and a mapper with
 * default typing is refused, so the JSON of a payload can never name a class to load. A payload type that
 * declares polymorphic typing itself ({@code @JsonTypeInfo}) is the application's choice.
 * <p>
 * <b>Envelope.</b> A message with headers or a time to live is stored as an envelope: the byte {@code 0x1E}
 * (which no JSON text starts with), the length in bytes of the envelope's JSON in ASCII digits, {@code 0x1E}
 * again, that JSON ({@code {"h":{...},"ttl":ms}}, written by a plain mapper of its own, never the application's)
 * and then the payload's JSON. A message without either is stored as its bare JSON, as every message was before
 * envelopes existed, so both kinds are read side by side and a queue's old messages are still delivered.
 */
final class PayloadCodec {

	/** Starts an envelope: a control character no JSON text begins with. */
	static final byte ENVELOPE = 0x1E;

	/** The envelope's own mapper: no application modules, no default typing. */
	private static final JsonMapper ENVELOPE_MAPPER = JsonMapper.builder().build();

	private final JsonMapper mapper;

	/**
	 * A reader per payload type (a queue's, so a few), its deserializer found once: {@code mapper.readValue(json,
	 * type)} looks the type and its deserializer up again on every call, on the driver's thread for a claim.
	 */
	private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

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
	 * @param json the payload's JSON, from {@link #encode(Object)}
	 * @param headers the headers, possibly none
	 * @param timeToLiveMillis the time to live, or 0 for none
	 * @return the bare JSON when there are neither headers nor a time to live, else an envelope around it
	 */
	byte[] wrap(byte[] json, Map<String, String> headers, long timeToLiveMillis) {
		if (headers.isEmpty() && timeToLiveMillis <= 0) {
			return json;
		}
		ObjectNode envelope = ENVELOPE_MAPPER.createObjectNode();
		if (!headers.isEmpty()) {
			ObjectNode named = envelope.putObject("h");
			headers.forEach(named::put);
		}
		if (timeToLiveMillis > 0) {
			envelope.put("ttl", timeToLiveMillis);
		}
		byte[] head = ENVELOPE_MAPPER.writeValueAsBytes(envelope);
		byte[] length = Integer.toString(head.length).getBytes(StandardCharsets.US_ASCII);
		byte[] stored = new byte[2 + length.length + head.length + json.length];
		stored[0] = ENVELOPE;
		System.arraycopy(length, 0, stored, 1, length.length);
		stored[1 + length.length] = ENVELOPE;
		System.arraycopy(head, 0, stored, 2 + length.length, head.length);
		System.arraycopy(json, 0, stored, 2 + length.length + head.length, json.length);
		return stored;
	}

	/**
	 * @return the payload
	 * @throws UndecodablePayloadException saying why
	 */
	<T> T decode(byte[] payload, Class<T> type, long maxSize) {
		return decodeMessage(payload, type, maxSize).payload();
	}

	/**
	 * Reads a stored message, enveloped or bare.
	 * @return the payload, headers and time to live
	 * @throws UndecodablePayloadException saying why
	 */
	<T> Decoded<T> decodeMessage(byte[] stored, Class<T> type, long maxSize) {
		Map<String, String> headers = Map.of();
		long timeToLive = 0;
		byte[] json = stored;
		if (stored.length > 0 && stored[0] == ENVELOPE) {
			int end = envelopeEnd(stored);
			if (end < 0) {
				throw new UndecodablePayloadException("the message's envelope is malformed");
			}
			int headStart = indexOf(stored, ENVELOPE, 1) + 1;
			JsonNode envelope;
			try {
				envelope = ENVELOPE_MAPPER.readTree(Arrays.copyOfRange(stored, headStart, end));
			}
			catch (JacksonException ex) {
				throw new UndecodablePayloadException("the message's envelope cannot be read: "
						+ ex.getOriginalMessage());
			}
			headers = headers(envelope);
			JsonNode ttl = envelope.get("ttl");
			timeToLive = (ttl != null && ttl.canConvertToLong()) ? Math.max(0, ttl.asLong()) : 0;
			json = Arrays.copyOfRange(stored, end, stored.length);
		}
		if (json.length > maxSize) {
			throw new UndecodablePayloadException("payload of " + json.length + " bytes is larger than the "
					+ maxSize + " bytes allowed");
		}
		try {
			ObjectReader reader = this.readers.get(type);
			if (reader == null) {
				reader = this.readers.computeIfAbsent(type, this.mapper::readerFor);
			}
			T value = reader.readValue(json);
			if (value == null) {
				throw new UndecodablePayloadException("payload is JSON null");
			}
			return new Decoded<>(value, headers, timeToLive);
		}
		catch (JacksonException ex) {
			throw new UndecodablePayloadException("payload cannot be read as " + type.getName() + ": "
					+ ex.getOriginalMessage());
		}
	}

	private static Map<String, String> headers(JsonNode envelope) {
		JsonNode named = envelope.get("h");
		if (named == null || !named.isObject() || named.isEmpty()) {
			return Map.of();
		}
		Map<String, String> headers = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> header : named.properties()) {
			if (!header.getValue().isString()) {
				throw new UndecodablePayloadException("header '" + header.getKey() + "' is not a string");
			}
			headers.put(header.getKey(), header.getValue().asString());
		}
		return Collections.unmodifiableMap(headers);
	}

	/**
	 * The payload's JSON of a stored message, without its envelope: what the dead-letter listing shows.
	 * @param stored as stored
	 * @return the bare JSON; a malformed envelope is returned whole
	 */
	static byte[] payloadOf(byte[] stored) {
		if (stored.length == 0 || stored[0] != ENVELOPE) {
			return stored;
		}
		int end = envelopeEnd(stored);
		return (end < 0) ? stored : Arrays.copyOfRange(stored, end, stored.length);
	}

	/**
	 * The headers of a stored message, for the dead-letter listing, which shows what it can: a message whose
	 * envelope cannot be read (it may be why it was dead-lettered) is listed without headers.
	 * @param stored as stored
	 * @return the headers, in their order; empty when there are none or the envelope cannot be read
	 */
	static Map<String, String> headersOf(byte[] stored) {
		if (stored.length == 0 || stored[0] != ENVELOPE) {
			return Map.of();
		}
		int end = envelopeEnd(stored);
		if (end < 0) {
			return Map.of();
		}
		int headStart = indexOf(stored, ENVELOPE, 1) + 1;
		try {
			return headers(ENVELOPE_MAPPER.readTree(Arrays.copyOfRange(stored, headStart, end)));
		}
		catch (JacksonException | UndecodablePayloadException ex) {
			return Map.of();
		}
	}

	/** Where the payload of an envelope starts, or -1 if the envelope is malformed. */
	private static int envelopeEnd(byte[] stored) {
		int second = indexOf(stored, ENVELOPE, 1);
		if (second < 2 || second > 11) {
			return -1;
		}
		long length = 0;
		for (int i = 1; i < second; i++) {
			if (stored[i] < '0' || stored[i] > '9') {
				return -1;
			}
			length = length * 10 + (stored[i] - '0');
		}
		long end = second + 1 + length;
		return (end > stored.length) ? -1 : (int) end;
	}

	private static int indexOf(byte[] bytes, byte wanted, int from) {
		for (int i = from; i < bytes.length && i < from + 12; i++) {
			if (bytes[i] == wanted) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * A stored message, read.
	 * @param payload the payload
	 * @param headers its headers, possibly none
	 * @param timeToLiveMillis its time to live, 0 for none
	 */
	record Decoded<T>(T payload, Map<String, String> headers, long timeToLiveMillis) {
	}

	/** A stored payload is not a JSON value of the queue's type. */
	static final class UndecodablePayloadException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		UndecodablePayloadException(String reason) {
			super(reason, null, false, false);
		}

	}

}

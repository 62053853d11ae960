package io.rediskit.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The messages on a cache's channel: a type, the entry's key (length-prefixed: a key may hold any character),
 * then a payload. {@link #WRITTEN} and {@link #CLEARED} drop near-cache entries; the outcomes of a load
 * ({@link #LOADED}, {@link #LOADED_NULL}, {@link #FAILED}) also wake the callers waiting for it.
 */
final class CacheMessages {

	/** An entry was written or evicted; no payload. */
	static final byte WRITTEN = 'W';

	/** Every entry of the cache was evicted; no key, no payload. */
	static final byte CLEARED = 'C';

	/** A load stored a value; the payload is its stored bytes. */
	static final byte LOADED = 'V';

	/** A load returned null; nothing was stored unless nulls are cached. */
	static final byte LOADED_NULL = 'N';

	/** A load failed; the payload is the failure's description, UTF-8. */
	static final byte FAILED = 'F';

	private CacheMessages() {
	}

	static byte[] of(byte type, String key, byte[] payload) {
		byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
		return ByteBuffer.allocate(5 + keyBytes.length + payload.length)
			.put(type)
			.putInt(keyBytes.length)
			.put(keyBytes)
			.put(payload)
			.array();
	}

	/** A message read back. */
	record Message(byte type, String key, byte[] payload) {

		static Message read(byte[] bytes) {
			ByteBuffer buffer = ByteBuffer.wrap(bytes);
			if (buffer.remaining() < 5) {
				throw new IllegalArgumentException("A cache message has at least 5 bytes, had " + bytes.length);
			}
			byte type = buffer.get();
			int keyLength = buffer.getInt();
			if (keyLength < 0 || keyLength > buffer.remaining()) {
				throw new IllegalArgumentException("A cache message's key length is out of range: " + keyLength);
			}
			byte[] key = new byte[keyLength];
			buffer.get(key);
			byte[] payload = new byte[buffer.remaining()];
			buffer.get(payload);
			return new Message(type, new String(key, StandardCharsets.UTF_8), payload);
		}

	}

}

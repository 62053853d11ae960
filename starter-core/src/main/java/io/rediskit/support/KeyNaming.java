package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Names the Redis keys of every primitive: {@code <prefix><area>:{<name>}[:<suffix>]}, for example
 * {@code rk:lock:{orders:42}:fence}.
 * <p>
 * All keys of one operation share the {@code {name}} hash tag, so they live in one hash slot and every
 * script runs on Redis Cluster. Names are data: {@code %}, <code>{</code>, <code>}</code> and {@code ~} are
 * percent-encoded, so a user value can neither end the hash tag early nor move a key to another slot, and
 * two different names never map to one key. An encoded name longer than {@value #MAX_ENCODED_NAME_LENGTH}
 * characters is shortened to its first 64 characters, {@code ~} and the SHA-256 of the whole name, which
 * bounds key length whatever the input.
 */
public final class KeyNaming {

	/** Prefix used when none is configured. */
	public static final String DEFAULT_PREFIX = "rk:";

	/** Longest encoded name kept as it is; longer names are hashed. */
	public static final int MAX_ENCODED_NAME_LENGTH = 200;

	private static final int KEPT_PREFIX_LENGTH = 64;

	private final String prefix;

	/**
	 * Creates key naming with a prefix.
	 * @param prefix prepended to every key, such as {@code rk:} or {@code myapp:rk:}; may be empty
	 * @throws IllegalArgumentException if the prefix contains a brace, which would break hash tags
	 */
	public KeyNaming(String prefix) {
		if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
			throw new IllegalArgumentException("Key prefix must not contain '{' or '}' (they would change the hash slot of every key), was '" + prefix + "'");
		}
		this.prefix = prefix;
	}

	/** @return key naming with the {@value #DEFAULT_PREFIX} prefix */
	public static KeyNaming defaults() {
		return new KeyNaming(DEFAULT_PREFIX);
	}

	/** @return the configured prefix */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * The key of a primitive.
	 * @param area the feature, such as {@code lock}
	 * @param name the user-given name, encoded as described in the class documentation
	 * @return {@code <prefix><area>:{<encoded name>}}
	 */
	public String key(String area, String name) {
		return this.prefix + area + ":{" + encode(name) + "}";
	}

	/**
	 * A further key or channel in the same hash slot as {@link #key(String, String)}, such as a lock's
	 * {@code :fence} key or {@code :released} channel.
	 * @param area the feature
	 * @param name the user-given name
	 * @param suffix a fixed suffix chosen by redis-kit, such as {@code fence}
	 * @return {@code <prefix><area>:{<encoded name>}:<suffix>}
	 */
	public String key(String area, String name, String suffix) {
		return key(area, name) + ":" + suffix;
	}

	/**
	 * A key or channel of an area as a whole, not of one name, such as the cache's probe channel.
	 * @param area the feature
	 * @param suffix a fixed suffix chosen by redis-kit
	 * @return {@code <prefix><area>:<suffix>}
	 */
	public String areaKey(String area, String suffix) {
		return this.prefix + area + ":" + suffix;
	}

	/**
	 * Encodes a name as it appears inside the hash tag.
	 * @param name any string
	 * @return the encoded, length-bounded form
	 */
	public static String encode(String name) {
		if (name.length() <= MAX_ENCODED_NAME_LENGTH && !needsEncoding(name)) {
			// The common case, on every call of every primitive: nothing to escape, nothing to shorten.
			return name;
		}
		StringBuilder encoded = new StringBuilder(name.length() + 8);
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			switch (c) {
				case '%' -> encoded.append("%25");
				case '{' -> encoded.append("%7B");
				case '}' -> encoded.append("%7D");
				case '~' -> encoded.append("%7E");
				default -> encoded.append(c);
			}
		}
		if (encoded.length() <= MAX_ENCODED_NAME_LENGTH) {
			return encoded.toString();
		}
		// '~' never appears in an encoded name, so a hashed name cannot equal any other name's encoding.
		return encoded.substring(0, KEPT_PREFIX_LENGTH) + "~" + sha256(name);
	}

	private static boolean needsEncoding(String name) {
		for (int i = 0; i < name.length(); i++) {
			switch (name.charAt(i)) {
				case '%', '{', '}', '~' -> {
					return true;
				}
				default -> {
				}
			}
		}
		return false;
	}

	private static String sha256(String value) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every JVM", ex);
		}
	}

}

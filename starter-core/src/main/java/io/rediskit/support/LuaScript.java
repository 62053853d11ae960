package io.rediskit.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script read once from a {@code .lua} resource, known to the server by its SHA-1 and run by a
 * {@link ScriptExecutor}. Keep one instance per script and share it.
 */
public final class LuaScript {

	private final String resource;

	private final byte[] source;

	private final String sha1;

	private LuaScript(String resource, byte[] source) {
		this.resource = resource;
		this.source = source;
		this.sha1 = sha1Hex(source);
	}

	/**
	 * Reads a script from the class path.
	 * @param resource the resource path, such as {@code META-INF/redis-kit/scripts/lock/acquire.lua}
	 * @return the script
	 * @throws IllegalStateException if the resource does not exist
	 */
	public static LuaScript fromClasspath(String resource) {
		try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + resource + " is missing from the class path");
			}
			return new LuaScript(resource, in.readAllBytes());
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read Lua script " + resource, ex);
		}
	}

	/** @return the SHA-1 the server knows the script by */
	public String sha1() {
		return this.sha1;
	}

	/** @return the script text */
	public String source() {
		return new String(this.source, StandardCharsets.UTF_8);
	}

	/** @return the script text as sent with {@code EVAL} */
	byte[] body() {
		return this.source;
	}

	@Override
	public String toString() {
		return this.resource + " (" + sha1() + ")";
	}

	private static String sha1Hex(byte[] source) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every JVM", ex);
		}
	}

}

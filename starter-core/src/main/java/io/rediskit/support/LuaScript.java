package io.rediskit.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

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

	/**
	 * Reads a script from the class path with other scripts before it as local functions, so that one script can
	 * run another's logic on its own keys in the same call: {@code local function name(KEYS, ARGV) <text> end}
	 * per function, then the script. A function is called as {@code name({key}, {arg1, arg2})} and returns what
	 * its script returns. The queue's claim counts its rate limit this way with the rate limiter's own script.
	 * @param resource the script's resource path
	 * @param functions function names and the resource paths of their scripts, in order
	 * @return the script
	 * @throws IllegalStateException if a resource does not exist
	 */
	public static LuaScript fromClasspath(String resource, Map<String, String> functions) {
		StringBuilder text = new StringBuilder();
		functions.forEach((name, path) -> text.append("local function ").append(name).append("(KEYS, ARGV)\n")
			.append(fromClasspath(path).source()).append("\nend\n"));
		text.append(fromClasspath(resource).source());
		return new LuaScript(resource, text.toString().getBytes(StandardCharsets.UTF_8));
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

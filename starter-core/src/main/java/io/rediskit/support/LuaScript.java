package io.rediskit.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * A Lua script read once from a {@code .lua} resource and run by {@code EVALSHA}. When the server answers
 * {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}) the script is sent once with
 * {@code EVAL}, which runs it and caches it again; nothing is retried otherwise, so an operation is never
 * applied twice by this class. Keep one instance per script and share it.
 */
public final class LuaScript {

	private final String resource;

	private final byte[] source;

	private final byte[] sha1;

	private LuaScript(String resource, byte[] source) {
		this.resource = resource;
		this.source = source;
		this.sha1 = sha1Hex(source).getBytes(StandardCharsets.US_ASCII);
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
		return new String(this.sha1, StandardCharsets.US_ASCII);
	}

	/** @return the script text */
	public String source() {
		return new String(this.source, StandardCharsets.UTF_8);
	}

	/**
	 * Runs the script on a connection from the factory.
	 * @param <T> the reply type: {@code Long} for {@link ReturnType#INTEGER}, {@code List<Object>} for
	 * {@link ReturnType#MULTI}
	 * @param connectionFactory where to run it
	 * @param returnType how to read the reply
	 * @param numKeys how many of {@code keysAndArgs} are keys
	 * @param keysAndArgs the keys, then the arguments
	 * @return the reply
	 */
	public <T> @Nullable T execute(RedisConnectionFactory connectionFactory, ReturnType returnType, int numKeys,
			byte[]... keysAndArgs) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			return execute(connection, returnType, numKeys, keysAndArgs);
		}
	}

	/**
	 * Runs the script on a connection the caller manages.
	 * @param <T> the reply type
	 * @param connection where to run it
	 * @param returnType how to read the reply
	 * @param numKeys how many of {@code keysAndArgs} are keys
	 * @param keysAndArgs the keys, then the arguments
	 * @return the reply
	 */
	public <T> @Nullable T execute(RedisConnection connection, ReturnType returnType, int numKeys, byte[]... keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(this.sha1, returnType, numKeys, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			// NOSCRIPT means the server ran nothing: sending the body once applies the operation exactly once.
			return connection.scriptingCommands().eval(this.source, returnType, numKeys, keysAndArgs);
		}
	}

	@Override
	public String toString() {
		return this.resource + " (" + sha1() + ")";
	}

	static boolean isNoScript(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause.getClass().getName().equals("io.lettuce.core.RedisNoScriptException")) {
				return true;
			}
			// Other drivers keep the server's error code at the start of the message: NOSCRIPT is that code.
			String message = cause.getMessage();
			if (message != null && message.startsWith("NOSCRIPT")) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
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

package io.rediskit.support;

import java.io.IOException;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;

/**
 * Tells apart the two kinds of Redis failure every primitive handles differently: Redis <em>unavailable</em>
 * (down, unreachable, too slow, disconnected, a connection reset, loading, busy with a script, a replica after a failover), where a failure
 * policy or a retry applies, and a <em>command error</em> (WRONGTYPE, NOPERM, a script error), which is a bug or
 * a misconfiguration and is thrown as it is.
 */
public final class RedisFailures {

	private RedisFailures() {
	}

	/**
	 * Whether a failure means Redis could not answer, as opposed to rejecting the command.
	 * @param failure a failure of a Redis call, translated by Spring or straight from the driver
	 * @return {@code true} for an outage
	 */
	public static boolean isUnavailable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			if (cause instanceof DataAccessResourceFailureException || cause instanceof TransientDataAccessException
					|| cause instanceof RedisCommandTimeoutException || cause instanceof RedisConnectionException
					|| cause instanceof RedisLoadingException || cause instanceof RedisBusyException
					|| cause instanceof RedisReadOnlyException) {
				return true;
			}
			// Lettuce raises its base type itself, never for a server's error reply (those are subtypes), when
			// the connection cannot carry the command: not connected with REJECT_COMMANDS, or closed.
			if (cause.getClass() == RedisException.class) {
				return true;
			}
			// A connection reset or broken while a command is in flight: Lettuce fails that command with the
			// channel's own exception ("Connection reset", "Broken pipe"), which nothing translates.
			if (cause instanceof IOException) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a failure is the server's {@code NOSCRIPT}: the script is not cached there and nothing ran.
	 * @param failure a failure of {@code EVALSHA}
	 * @return {@code true} for {@code NOSCRIPT}
	 */
	public static boolean isNoScript(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = next(cause)) {
			if (cause instanceof RedisNoScriptException) {
				return true;
			}
			// Drivers other than Lettuce keep the server's error code at the start of the message.
			String message = cause.getMessage();
			if (message != null && message.startsWith("NOSCRIPT")) {
				return true;
			}
		}
		return false;
	}

	private static Throwable next(Throwable cause) {
		Throwable next = cause.getCause();
		return (next == cause) ? null : next;
	}

}

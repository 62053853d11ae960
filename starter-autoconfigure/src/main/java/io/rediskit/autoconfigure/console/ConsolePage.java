package io.rediskit.autoconfigure.console;

import java.util.Map;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;

/**
 * What both web stacks' routes share: the assets in the jar, the response headers, how request parameters are
 * read and how failures are answered.
 */
final class ConsolePage {

	private static final Log logger = LogFactory.getLog(ConsolePage.class);

	/** The page, its script and its style sheet, in the jar. */
	static final Resource ASSETS = new ClassPathResource("META-INF/redis-kit/console/");

	static final Resource INDEX = new ClassPathResource("META-INF/redis-kit/console/index.html");

	/**
	 * Scripts and styles only from the console itself, no inline script, no framing: should data ever reach the
	 * DOM as markup, the browser still refuses to run it. The page never does that (it sets text only); this is
	 * the second wall.
	 */
	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

	private ConsolePage() {
	}

	/**
	 * Adds the console's security and caching headers to a response of either web stack.
	 * @param headers the headers of a response being built
	 */
	static void headers(HttpHeaders headers) {
		headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
		headers.set("X-Content-Type-Options", "nosniff");
		headers.set("Referrer-Policy", "no-referrer");
		headers.setCacheControl(CacheControl.noStore());
	}

	/**
	 * @param access the access rules
	 * @param caller who asks
	 * @param csrf the CSRF header and token the page sends with each action, {@code null} without Spring Security
	 * @return what the page knows of its user
	 */
	static Session session(ConsoleAccess access, Caller caller, @Nullable Map<String, String> csrf) {
		return new Session(caller.authenticated() ? caller.name() : null, access.security(), access.actionsAllowed(),
				access.canAct(caller), access.actionsNote(), ConsoleAccess.ACTION_HEADER, csrf);
	}

	/**
	 * What the page knows of its user.
	 * @param user the user's name, {@code null} when nobody signed in
	 * @param security whether Spring Security decides who may use the console
	 * @param actionsAllowed whether the console offers actions at all
	 * @param canAct whether this user may act
	 * @param actionsNote what the page says about actions
	 * @param actionHeader the header every action must carry
	 * @param csrf the CSRF header and token to send with every action, {@code null} when there is none
	 */
	record Session(@Nullable String user, boolean security, boolean actionsAllowed, boolean canAct,
			String actionsNote, String actionHeader, @Nullable Map<String, String> csrf) {
	}

	/**
	 * @param value the {@code page} parameter
	 * @return the page number, from 0
	 */
	static int page(@Nullable String value) {
		return (value == null || value.isEmpty()) ? 0 : number("page", value);
	}

	/**
	 * @param value the {@code max} parameter of a redrive
	 * @return how many to move, 1 by default
	 */
	static int max(@Nullable String value) {
		return (value == null || value.isEmpty()) ? 1 : number("max", value);
	}

	private static int number(String parameter, String value) {
		try {
			return Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			// The value is not echoed: it is request data.
			throw new IllegalArgumentException(parameter + " must be a whole number");
		}
	}

	/**
	 * @param path the request path of an action
	 * @return the action's name for the log and the meter, one of a fixed few
	 */
	static String actionName(String path) {
		for (String action : new String[] { "redrive", "redrive-dead-letter", "delete-dead-letter", "purge", "pause",
				"resume" }) {
			if (path.endsWith("/queue/" + action)) {
				return action;
			}
		}
		for (String action : new String[] { "pause", "resume", "trigger" }) {
			if (path.endsWith("/recurring/" + action)) {
				return action + "-recurring";
			}
		}
		if (path.endsWith("/cache/evict")) {
			return "evict-cache-key";
		}
		if (path.endsWith("/cache/clear")) {
			return "clear-cache";
		}
		return "other";
	}

	/**
	 * @param ex what a handler threw
	 * @return 400 for bad input, 409 for a report already running, else 500
	 */
	static int status(Throwable ex) {
		if (ex instanceof IllegalArgumentException) {
			return HttpStatus.BAD_REQUEST.value();
		}
		if (ex instanceof IllegalStateException) {
			return HttpStatus.CONFLICT.value();
		}
		logger.warn("redis-kit console: a request failed", ex);
		return HttpStatus.INTERNAL_SERVER_ERROR.value();
	}

	static String message(Throwable ex) {
		return (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getSimpleName();
	}

}

package io.rediskit.autoconfigure.console;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Who may see the console and who may act in it; the one place these rules live, for both web stacks.
 * <ul>
 * <li>With Spring Security on the class path, a page or a read needs an authenticated user with the viewing role
 * or the action role; an action needs the action role. The application's filter chain authenticates (and
 * checks CSRF tokens); the console only reads the result, so it fails closed when nothing authenticated the
 * request.</li>
 * <li>Without it, anyone who reaches the console may read; actions stay off unless
 * {@code redis-kit.console.actions.allow-without-security=true}.</li>
 * <li>Actions need {@code redis-kit.console.actions.enabled=true} in both cases, and every action request must
 * carry the header {@value #ACTION_HEADER}, which a cross-site form cannot send and a cross-site script cannot
 * send without the CORS consent the console never gives: CSRF protection that holds without Spring Security
 * too.</li>
 * </ul>
 */
final class ConsoleAccess {

	static final String ACTION_HEADER = "X-Redis-Kit-Console";

	/** Spring Security's class whose presence makes the console ask it who the user is. */
	static final String SECURITY_CLASS = "org.springframework.security.core.context.SecurityContextHolder";

	private final boolean security;

	private final String viewAuthority;

	private final String actionAuthority;

	private final boolean actionsAllowed;

	private final String actionsNote;

	ConsoleAccess(ConsoleProperties properties, boolean security) {
		this.security = security;
		this.viewAuthority = "ROLE_" + properties.getRole();
		this.actionAuthority = "ROLE_" + properties.getActionRole();
		if (!properties.getActions().isEnabled()) {
			this.actionsAllowed = false;
			this.actionsNote = "read-only (redis-kit.console.actions.enabled=false)";
		}
		else if (security) {
			this.actionsAllowed = true;
			this.actionsNote = "actions for role " + properties.getActionRole();
		}
		else if (properties.getActions().isAllowWithoutSecurity()) {
			this.actionsAllowed = true;
			this.actionsNote = "actions enabled WITHOUT Spring Security "
					+ "(redis-kit.console.actions.allow-without-security=true): anyone who reaches the console can "
					+ "redrive and purge queues";
		}
		else {
			this.actionsAllowed = false;
			this.actionsNote = "read-only: actions are enabled but Spring Security is not on the class path; set "
					+ "redis-kit.console.actions.allow-without-security=true to allow them anyway";
		}
	}

	/** @return whether Spring Security decides who may use the console */
	boolean security() {
		return this.security;
	}

	/** @return whether the console offers actions at all */
	boolean actionsAllowed() {
		return this.actionsAllowed;
	}

	/** @return what the startup log and the page say about actions */
	String actionsNote() {
		return this.actionsNote;
	}

	/**
	 * @param caller who asks
	 * @return the refusal of a read, or {@code null} if allowed
	 */
	@Nullable Refusal view(Caller caller) {
		if (!this.security) {
			return null;
		}
		if (!caller.authenticated()) {
			return new Refusal(401, "Sign in to use the redis-kit console");
		}
		if (!caller.authorities().contains(this.viewAuthority) && !caller.authorities().contains(this.actionAuthority)) {
			return new Refusal(403, "The redis-kit console needs role " + this.viewAuthority.substring(5));
		}
		return null;
	}

	/**
	 * @param caller who asks
	 * @param actionHeader whether the request carries {@value #ACTION_HEADER}
	 * @return the refusal of an action, or {@code null} if allowed
	 */
	@Nullable Refusal act(Caller caller, boolean actionHeader) {
		if (!this.actionsAllowed) {
			return new Refusal(403, "Actions are off: " + this.actionsNote);
		}
		if (!actionHeader) {
			return new Refusal(403, "Actions need the " + ACTION_HEADER + " header");
		}
		if (this.security) {
			if (!caller.authenticated()) {
				return new Refusal(401, "Sign in to use the redis-kit console");
			}
			if (!caller.authorities().contains(this.actionAuthority)) {
				return new Refusal(403, "Actions need role " + this.actionAuthority.substring(5));
			}
		}
		return null;
	}

	/**
	 * @param caller who asks
	 * @return whether the page should offer actions to this user
	 */
	boolean canAct(Caller caller) {
		return this.actionsAllowed && (!this.security || caller.authorities().contains(this.actionAuthority));
	}

	/**
	 * Who makes a request.
	 * @param name the user name, for the log; {@code anonymous} when unknown
	 * @param authenticated whether someone signed in
	 * @param authorities the granted authorities, such as {@code ROLE_REDIS_KIT_VIEWER}
	 */
	record Caller(String name, boolean authenticated, Set<String> authorities) {

		static final Caller ANONYMOUS = new Caller("anonymous", false, Set.of());

	}

	/**
	 * Why a request is refused.
	 * @param status 401 or 403
	 * @param reason the message shown; never holds request data
	 */
	record Refusal(int status, String reason) {
	}

}

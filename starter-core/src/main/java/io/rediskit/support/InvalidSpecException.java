package io.rediskit.support;

/**
 * A spec (such as a rate limiter's or the lock's) rejected a value. The spec types validate once, in their
 * constructors; this exception tells a binding layer which component was at fault, so that it can report the
 * property it was bound from, with its origin, and the reason.
 */
public class InvalidSpecException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String component;

	private final String reason;

	/**
	 * @param component the spec's component at fault, as its accessor is named, such as {@code period}
	 * @param reason why, completing a sentence that starts with the component, such as
	 * {@code must be at least 1ms, was PT0S}
	 */
	public InvalidSpecException(String component, String reason) {
		super(component + " " + reason);
		this.component = component;
		this.reason = reason;
	}

	/** @return the component at fault, such as {@code period} */
	public String getComponent() {
		return this.component;
	}

	/** @return why, such as {@code must be at least 1ms, was PT0S} */
	public String getReason() {
		return this.reason;
	}

}

package io.rediskit.sample;

/**
 * What a login attempt did.
 *
 * @param username the user name
 * @param outcome {@code LOGGED_IN} or {@code BAD_CREDENTIALS}
 */
public record LoginOutcome(String username, String outcome) {
}

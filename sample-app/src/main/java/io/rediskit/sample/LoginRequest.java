package io.rediskit.sample;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /api/login}. Either part may be missing from the JSON; {@link LoginController}
 * answers 400 then, before the rate limiter sees the request.
 *
 * @param username the user name, the key of the {@code login} limiter
 * @param password the password
 */
public record LoginRequest(@Nullable String username, @Nullable String password) {
}

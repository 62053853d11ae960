package io.rediskit.sample;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiterRegistry;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;

/**
 * Checks passwords, at most 5 attempts per user name per minute (the {@code login} limiter of
 * {@code application.yml}). The limiter fails closed: while Redis cannot answer, every attempt is refused,
 * because guessing passwords without a limit is worse than nobody logging in for a while. One demo account,
 * from {@code sample.login.*}.
 */
@Service
public class LoginService {

	private final RateLimiterRegistry rateLimiters;

	private final String username;

	private final byte[] password;

	LoginService(RateLimiterRegistry rateLimiters, @Value("${sample.login.username}") String username,
			@Value("${sample.login.password}") String password) {
		this.rateLimiters = rateLimiters;
		this.username = username;
		this.password = password.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Checks one attempt. Over the limit the method does not run: {@code RateLimitExceededException} is thrown,
	 * and the starter answers it with HTTP 429.
	 * @param request user name and password, both present
	 * @return whether they match
	 */
	@RateLimited(name = "login", key = "#request.username")
	public boolean login(LoginRequest request) {
		String user = String.valueOf(request.username());
		boolean matches = this.username.equals(user) && MessageDigest.isEqual(this.password,
				String.valueOf(request.password()).getBytes(StandardCharsets.UTF_8));
		if (matches) {
			// The user proved who they are: their earlier typos no longer count against the next attempts.
			this.rateLimiters.get("login").reset(user);
		}
		return matches;
	}

}

package io.rediskit.sample;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/login} with {@code {"username": ..., "password": ...}}: 200 when they match, 401 when they
 * do not, 429 after 5 attempts for one user name within a minute (or while Redis is down), 400 without both.
 */
@RestController
public class LoginController {

	private final LoginService logins;

	LoginController(LoginService logins) {
		this.logins = logins;
	}

	@PostMapping("/api/login")
	ResponseEntity<LoginOutcome> login(@RequestBody LoginRequest request) {
		String username = request.username();
		String password = request.password();
		if (username == null || username.isBlank() || password == null) {
			// Checked before the limiter: a missing user name is no key to count under.
			return ResponseEntity.badRequest().build();
		}
		if (this.logins.login(request)) {
			return ResponseEntity.ok(new LoginOutcome(username, "LOGGED_IN"));
		}
		return ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(new LoginOutcome(username, "BAD_CREDENTIALS"));
	}

}

package io.rediskit.sample;

import java.time.Duration;

import io.rediskit.lock.DistributedLock;
import io.rediskit.ratelimit.RateLimited;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reactive endpoints on Spring MVC (Reactor is on the class path with Lettuce): the annotations ask Redis when
 * Spring MVC subscribes to the {@code Mono}, without blocking a thread.
 * <ul>
 * <li>{@code GET /api/reactive/quote}: {@code @RateLimited}, 5 calls per 10 s per client ({@code X-Client});
 * over the limit the error signal carries {@code RateLimitExceededException}, answered with 429.</li>
 * <li>{@code POST /api/reactive/reports/{name}}: {@code @DistributedLock} per report name, held while the
 * report is built (2 s, without a thread); a second request for the same report meanwhile answers 409.</li>
 * </ul>
 */
@RestController
@RequestMapping("/api/reactive")
public class ReactiveController {

	static final Duration BUILD_TIME = Duration.ofSeconds(2);

	@RateLimited(name = "api-reactive", key = "#client")
	@GetMapping("/quote")
	public Mono<String> quote(
			@RequestHeader(name = RateLimitController.CLIENT, defaultValue = RateLimitController.ANONYMOUS) String client) {
		return Mono.just("The best way to predict the future is to invent it.");
	}

	@DistributedLock(name = "reactive-report", key = "#name", waitTime = "0s")
	@PostMapping("/reports/{name}")
	public Mono<String> buildReport(@PathVariable String name) {
		return Mono.delay(BUILD_TIME).thenReturn("report " + name + " built");
	}

}

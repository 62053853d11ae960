package io.rediskit.benchmarks.web;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiterRegistry;
import jakarta.servlet.http.HttpServletRequest;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;

/**
 * The two applications {@link WebBenchmark} measures, each as small as a web application gets: one controller
 * that answers {@code hello} on {@code GET /hello}, with nothing in the way, and on {@code GET /limited} behind
 * the limiter {@value #LIMITER}, keyed by the client's IP address. In MVC {@link RateLimited @RateLimited} puts
 * it there; in WebFlux a {@link WebFilter} asks {@code tryAcquireAsync}, as the gateway's filter does. Both
 * answer {@code 429} when rejected, which the benchmark counts as a failure: its limit is set so high that
 * nothing is, and what is measured is the cost of deciding.
 * <p>
 * Neither scans components: each names what it holds, so that the other's beans stay out.
 */
final class WebApplications {

	/** The limiter on {@code /limited}, configured by {@link WebBenchmark}. */
	static final String LIMITER = "bench";

	private WebApplications() {
	}

	/** Counts the decisions of {@value #LIMITER}, so the benchmark can tell that a variant used it, or did not. */
	static final class DecisionCounter implements RateLimitListener {

		private final LongAdder decisions = new LongAdder();

		@Override
		public void onDecision(String limiterName, RateLimitDecision decision, Duration latency) {
			if (LIMITER.equals(limiterName)) {
				this.decisions.increment();
			}
		}

		long decisions() {
			return this.decisions.sum();
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ MvcController.class, DecisionCounter.class })
	static class Mvc {

	}

	@RestController
	static class MvcController {

		@GetMapping("/hello")
		public String hello() {
			return "hello";
		}

		@RateLimited(name = LIMITER, key = "#request.remoteAddr")
		@GetMapping("/limited")
		public String limited(HttpServletRequest request) {
			return "hello";
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ WebFluxController.class, DecisionCounter.class })
	static class WebFlux {

		// Only on /limited: /hello (and any route under rules, once they exist) stays untouched.
		@Bean
		WebFilter limitedRouteFilter(ObjectProvider<RateLimiterRegistry> registry) {
			return (exchange, chain) -> {
				ServerHttpRequest request = exchange.getRequest();
				if (!"/limited".equals(request.getPath().value())) {
					return chain.filter(exchange);
				}
				String ip = (request.getRemoteAddress() != null)
						? request.getRemoteAddress().getAddress().getHostAddress() : "unknown";
				return Mono.fromCompletionStage(() -> registry.getObject().get(LIMITER).tryAcquireAsync(ip))
					.flatMap((decision) -> {
						if (decision.allowed()) {
							return chain.filter(exchange);
						}
						exchange.getResponse().setStatusCode(HttpStatus.TOO_MANY_REQUESTS);
						return exchange.getResponse().setComplete();
					});
			};
		}

	}

	@RestController
	static class WebFluxController {

		@GetMapping("/hello")
		public Mono<String> hello() {
			return Mono.just("hello");
		}

		@GetMapping("/limited")
		public Mono<String> limited() {
			return Mono.just("hello");
		}

	}

}

package io.rediskit.autoconfigure.ratelimit;

import java.net.http.HttpResponse;
import java.time.Duration;

import io.rediskit.autoconfigure.reactive.BlockHoundGate;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.server.WebSession;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Rate limits for routes in WebFlux on Reactor Netty, behind Spring Security's WebFilter chain, under BlockHound:
 * any blocking call on a server or driver thread fails the test.
 */
class RateLimitRulesWebFluxTests extends RateLimitRulesHttpContract {

	@Override
	WebApplicationType webApplicationType() {
		return WebApplicationType.REACTIVE;
	}

	@Override
	Class<?> application() {
		return FluxApplication.class;
	}

	@Override
	String sessionCookie(HttpResponse<String> response) {
		String cookie = response.headers().firstValue("Set-Cookie").orElseThrow();
		assertThat(cookie).startsWith("SESSION=");
		return cookie.substring(0, cookie.indexOf(';'));
	}

	private BlockHoundGate blockHound;

	@BeforeAll
	void checkBlockingCalls() {
		this.blockHound = BlockHoundGate.open();
	}

	@AfterAll
	void stopCheckingBlockingCalls() {
		this.blockHound.close();
	}

	@AfterEach
	void noBlockingCalls() {
		assertThat(BlockHoundGate.takeViolations()).isEmpty();
	}

	@Test
	void runsOnReactorNetty() {
		try (ConfigurableApplicationContext context = run()) {
			assertThat(context.getBeansOfType(DispatcherHandler.class)).hasSize(1);
			assertThat(context.getBeansOfType(DispatcherServlet.class)).isEmpty();
		}
	}

	@Test
	void blockHoundCatchesABlockingCallInARequest() throws Exception {
		// The handler runs on whichever non-blocking thread the filters before it left the request on.
		assertThat(get("/blocking").statusCode()).isEqualTo(500);
		assertThat(BlockHoundGate.takeViolations()).singleElement()
			.satisfies((call) -> assertThat(call).startsWith("java.lang.Thread.sleep on "));
	}

	@Test
	void blockHoundCatchesABlockingCallOnAReactorThread() {
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> Mono.fromCallable(() -> {
				Thread.sleep(1);
				return "slept";
			}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
			.withRootCauseInstanceOf(BlockingOperationError.class);
		assertThat(BlockHoundGate.takeViolations()).singleElement()
			.satisfies((call) -> assertThat(call).contains("sleep").contains("parallel"));
	}

	@Test
	void aLimiterAskedInTheRequestsReactiveChainAddsItsSuccessHeaders() throws Exception {
		HttpResponse<String> first = get("/reactive-limited");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.headers().allValues("RateLimit-Policy")).containsExactly("\"annotated\";q=2;w=3600");
		assertRemaining(first, "annotated", 1);
		try (ConfigurableApplicationContext off = run("redis-kit.rate-limit.web.headers.on-success=false")) {
			HttpResponse<String> quiet = getFrom(base(off), "/reactive-limited");
			assertThat(quiet.statusCode()).isEqualTo(200);
			assertThat(quiet.headers().firstValue("RateLimit-Policy")).isEmpty();
		}
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Endpoints.class, FluxEndpoints.class, FluxSecurity.class, OwnEventLoops.class })
	static class FluxApplication {

	}

	@RestController
	static class FluxEndpoints {

		private final RateLimiterRegistry limiters;

		FluxEndpoints(RateLimiterRegistry limiters) {
			this.limiters = limiters;
		}

		// What a reactive interceptor does: decide inside the request's chain, then hand the decision over.
		@GetMapping("/reactive-limited")
		Mono<String> reactiveLimited() {
			RateLimiter limiter = this.limiters.get("annotated");
			return Mono.deferContextual((context) -> Mono.fromCompletionStage(() -> limiter.tryAcquireAsync("k"))
				.map((decision) -> {
					ReactiveSuccessHeaders.allowed(limiter, decision, context);
					return "ok";
				}));
		}

		@GetMapping("/start-session")
		Mono<String> startSession(WebSession session) {
			session.start();
			return Mono.just("started");
		}

		@GetMapping("/blocking")
		String blocking() throws InterruptedException {
			Thread.sleep(1);
			return "slept";
		}

	}

	// Event loops of its own: closing the application of one test (Boot's factory disposes the global ones) must not
	// stop the server of another.
	@Configuration(proxyBeanMethods = false)
	static class OwnEventLoops {

		@Bean
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			// Netty waits 2 s for quiet by default when its loops close: nothing is in flight when a test ends.
			factory.setShutdownQuietPeriod(Duration.ZERO);
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFluxSecurity
	static class FluxSecurity {

		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().permitAll())
				.httpBasic(Customizer.withDefaults())
				.csrf(ServerHttpSecurity.CsrfSpec::disable)
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(
					User.withUsername("ada").password("{noop}secret").roles("USER").build(),
					User.withUsername("bob").password("{noop}secret").roles("USER").build());
		}

	}

}

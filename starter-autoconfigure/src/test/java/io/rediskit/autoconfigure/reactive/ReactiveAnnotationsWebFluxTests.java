package io.rediskit.autoconfigure.reactive;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.ratelimit.RateLimited;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reactive {@code @RateLimited} and {@code @DistributedLock} controller methods over real HTTP on Reactor Netty,
 * with BlockHound watching every Netty, Lettuce and Reactor non-blocking thread: any blocking call there fails
 * the request and is recorded, and each test checks that none was.
 */
class ReactiveAnnotationsWebFluxTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static ConfigurableApplicationContext context;

	private static String base;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(ReactiveApplication.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "spring.main.banner-mode=off",
					"spring.data.redis.port=" + redis.server().port(), "redis-kit.rate-limit.limiters.api.limit=2",
					"redis-kit.rate-limit.limiters.api.period=1h", "redis-kit.lock.max-poll-interval=200ms")
			.run();
		base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
		// The shared connection opens on first use, which blocks once: open it before BlockHound watches.
		context.getBean(RateLimiterRegistry.class).get("api").tryAcquire("warm-up");
		var lock = context.getBean(LockRegistry.class).getLock("warm-up");
		lock.lock();
		lock.unlock();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void blockHoundIsActiveOnNettyAndReactorThreads() throws Exception {
		try (BlockHoundGate gate = BlockHoundGate.open()) {
			// A deliberate block on Reactor Netty's event loop: the request fails and the block is recorded.
			assertThat(get("/block", "a").statusCode()).isEqualTo(500);
			assertThat(BlockHoundGate.violations()).anySatisfy((violation) -> assertThat(violation)
				.contains("sleep").contains("reactor-http-"));
			// And on Reactor's parallel scheduler.
			assertThatThrownBy(() -> Mono.fromCallable(() -> {
				Thread.sleep(1);
				return "slept";
			}).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10)))
				.hasCauseInstanceOf(BlockingOperationError.class);
		}
	}

	@Test
	void rateLimitedMonoIsDecidedWithoutBlockingAndAnswers429OverTheLimit() throws Exception {
		try (BlockHoundGate gate = BlockHoundGate.open()) {
			assertThat(get("/limited", "a").body()).isEqualTo("limited ok");
			assertThat(get("/limited", "a").body()).isEqualTo("limited ok");
			HttpResponse<String> rejected = get("/limited", "a");
			assertThat(rejected.statusCode()).isEqualTo(429);
			assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
			assertThat(get("/limited-flux", "b").body()).isEqualTo("onetwo");
			assertThat(get("/limited-flux", "b").statusCode()).isEqualTo(200);
			assertThat(get("/limited-flux", "b").statusCode()).isEqualTo(429);
			assertThat(BlockHoundGate.violations()).isEmpty();
		}
	}

	// docs/rate-limiting.md "Headers on success" promises these for reactive controller methods in WebFlux.
	@Test
	void anAllowedRateLimitedMonoCarriesTheSuccessHeaders() throws Exception {
		try (BlockHoundGate gate = BlockHoundGate.open()) {
			HttpResponse<String> allowed = get("/limited", "c");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().allValues("RateLimit-Policy")).containsExactly("\"api\";q=2;w=3600");
			assertThat(allowed.headers().allValues("RateLimit")).singleElement()
				.satisfies((value) -> assertThat(value).startsWith("\"api\";r=1;t="));
			assertThat(BlockHoundGate.violations()).isEmpty();
		}
	}

	@Test
	void concurrentRequestsOnOneLockNeverOverlapAndWaitWithoutBlocking() throws Exception {
		OverlapChecker checker = context.getBean(OverlapChecker.class);
		int requests = 12;
		try (BlockHoundGate gate = BlockHoundGate.open()) {
			List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < requests; i++) {
				String path = (i % 2 == 0) ? "/locked/" + i : "/locked-flux/" + i;
				responses.add(this.http.sendAsync(request(path, "a"), HttpResponse.BodyHandlers.ofString()));
			}
			for (CompletableFuture<HttpResponse<String>> response : responses) {
				assertThat(answer(response).statusCode()).isEqualTo(200);
			}
			assertThat(BlockHoundGate.violations()).isEmpty();
		}
		assertThat(checker.completed()).isEqualTo(requests);
		assertThat(checker.problems()).isEmpty();
		assertThat(redis.server().command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
	}

	@Test
	void streamsFailingAfterTheyEmittedReleaseTheLockAndLeaveLaterHoldersAlone() throws Exception {
		// Two of twelve locked streams fail after their response is committed: the connection is cut, the lock
		// released. Every other request must still hold the lock alone and release it cleanly: a release that
		// found the lease lost would end its response in an error, not a 200.
		OverlapChecker checker = context.getBean(OverlapChecker.class);
		for (int round = 0; round < 3; round++) {
			List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
			for (int i = 0; i < 12; i++) {
				String path = (i % 6 == 1) ? "/locked-flux-failing/" + round + "-" + i
						: (i % 2 == 0) ? "/locked/" + round + "-" + i : "/locked-flux/" + round + "-" + i;
				responses.add(this.http.sendAsync(request(path, "a"), HttpResponse.BodyHandlers.ofString()));
			}
			for (int i = 0; i < 12; i++) {
				CompletableFuture<HttpResponse<String>> response = responses.get(i);
				if (i % 6 == 1) {
					// The status line went out before the stream failed; the body is cut short.
					assertThat(response).failsWithin(Duration.ofMinutes(2));
				}
				else {
					assertThat(answer(response).statusCode()).as("request %d of round %d", i, round)
						.isEqualTo(200);
				}
			}
			assertThat(checker.problems()).isEmpty();
			assertThat(redis.server().command("EXISTS", "rk:lock:{report}")).isEqualTo(0L);
		}
	}

	@Test
	void aBusyLockAnswers409WithoutBlocking() throws Exception {
		try (var lease = context.getBean(LockRegistry.class).getLock("report").acquire(Duration.ZERO);
				BlockHoundGate gate = BlockHoundGate.open()) {
			assertThat(get("/locked-once", "a").statusCode()).isEqualTo(409);
			assertThat(BlockHoundGate.violations()).isEmpty();
		}
	}

	/**
	 * Waits for a response; a request left without one fails with every thread's stack, so that a hang seen once
	 * (a CI run) says where it waited.
	 */
	private static HttpResponse<String> answer(CompletableFuture<HttpResponse<String>> response) throws Exception {
		try {
			return response.get(2, TimeUnit.MINUTES);
		}
		catch (TimeoutException ex) {
			StringBuilder threads = new StringBuilder("No response within 2 minutes. Threads:\n");
			Thread.getAllStackTraces().forEach((thread, stack) -> {
				threads.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
				for (StackTraceElement frame : stack) {
					threads.append("\tat ").append(frame).append('\n');
				}
			});
			throw new AssertionError(threads.toString(), ex);
		}
	}

	private HttpResponse<String> get(String path, String client) throws Exception {
		return this.http.send(request(path, client), HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest request(String path, String client) {
		return HttpRequest.newBuilder(URI.create(base + path)).header("X-Client", client).GET().build();
	}

	// Auto-configuration without component scanning, which would find the other tests' configurations.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ReactiveController.class)
	static class ReactiveApplication {

		@Bean
		OverlapChecker overlapChecker() {
			return new OverlapChecker();
		}

	}

	@RestController
	static class ReactiveController {

		private final OverlapChecker checker;

		ReactiveController(OverlapChecker checker) {
			this.checker = checker;
		}

		@RateLimited(name = "api", key = "#client")
		@GetMapping("/limited")
		Mono<String> limited(@RequestHeader("X-Client") String client) {
			return Mono.just("limited ok");
		}

		@RateLimited(name = "api", key = "#client")
		@GetMapping("/limited-flux")
		Flux<String> limitedFlux(@RequestHeader("X-Client") String client) {
			return Flux.just("one", "two");
		}

		@DistributedLock(name = "report", waitTime = "60s")
		@GetMapping("/locked/{id}")
		Mono<String> locked(@PathVariable String id) {
			return Mono.fromRunnable(() -> this.checker.enter(id))
				.then(Mono.delay(Duration.ofMillis(20)))
				.then(Mono.fromSupplier(() -> {
					this.checker.exit(id);
					return id;
				}));
		}

		@DistributedLock(name = "report", waitTime = "60s")
		@GetMapping("/locked-flux/{id}")
		Flux<String> lockedFlux(@PathVariable String id) {
			return Flux.concat(Mono.fromRunnable(() -> this.checker.enter(id)),
					// delayElements, not interval: interval fails with an overflow when the response is written slower
					// than it ticks (seen on a loaded CI machine)
					Flux.range(0, 3).delayElements(Duration.ofMillis(5)).map(String::valueOf),
					Mono.fromRunnable(() -> this.checker.exit(id)));
		}

		@DistributedLock(name = "report", waitTime = "60s")
		@GetMapping("/locked-flux-failing/{id}")
		Flux<String> lockedFluxFailing(@PathVariable String id) {
			return Flux.concat(Mono.fromRunnable(() -> this.checker.enter(id)),
					Flux.range(0, 3).delayElements(Duration.ofMillis(5)).map(String::valueOf),
					// The checker hears the exit before the error, as the lock is released only after it.
					Mono.fromRunnable(() -> this.checker.exit(id)),
					Mono.error(new IllegalStateException("failed after emitting")));
		}

		@DistributedLock(name = "report", waitTime = "0s")
		@GetMapping("/locked-once")
		Mono<String> lockedOnce() {
			return Mono.just("ran");
		}

		@GetMapping("/block")
		Mono<String> block() {
			return Mono.fromCallable(() -> {
				Thread.sleep(1);
				return "slept";
			});
		}

	}

}

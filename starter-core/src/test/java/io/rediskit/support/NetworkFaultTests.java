package io.rediskit.support;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.RedisLock;
import io.rediskit.ratelimit.FailurePolicy;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitDecision;
import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.ratelimit.RateLimitListener;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.testsupport.FaultProxy;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The link to a running server goes bad ({@link FaultProxy}) instead of the server stopping: a black hole (a
 * half-open link: writes succeed, nothing answers) and a reset. Limiters and a lock go through one
 * {@link RedisAvailability} gate, as the starter wires them, so the assertions are what
 * {@code docs/reliability.md} promises: one command timeout for the call that finds the fault, the outage policy
 * at once after it, and service back once a {@code PING} is answered.
 */
class NetworkFaultTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(800);

	private static final Duration PROBE_INTERVAL = Duration.ofMillis(200);

	// What "at once" means on a loaded 2-core machine (the same bound as RedisAvailabilityTests).
	private static final Duration AT_ONCE = Duration.ofMillis(250);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	FaultProxy proxy;

	LettuceConnectionFactory connections;

	RedisAvailability availability;

	final List<RuntimeException> failures = new CopyOnWriteArrayList<>();

	RateLimiter open;

	RateLimiter closed;

	LockRegistry locks;

	RedisLock lock;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.proxy = FaultProxy.start(redis.server());
		this.connections = this.proxy.newConnectionFactory(COMMAND_TIMEOUT);
		this.availability = RedisAvailability.of(this.connections, PROBE_INTERVAL, null, List.of());
		ScriptExecutor scripts = this.availability.guard(ScriptExecutor.of(this.connections));
		RateLimiterRegistry limiters = new RateLimiterRegistry(scripts, this.connections, KeyNaming.defaults(),
				List.of(new RateLimitListener() {

					@Override
					public void onFailure(String limiterName, RuntimeException failure) {
						NetworkFaultTests.this.failures.add(failure);
					}

				}), (name) -> null);
		this.open = limiters.create("open", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 1_000_000, Duration.ofMinutes(1)));
		this.closed = limiters.create("closed",
				RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 1_000_000, Duration.ofMinutes(1))
					.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		this.locks = new LockRegistry(scripts, this.connections, KeyNaming.defaults(), LockSpec.defaults(), List.of(),
				Clock.systemUTC());
		this.lock = this.locks.getLock("net");
		// Connected, scripts loaded, before any fault.
		assertThat(fromRedis(this.open.tryAcquire("k"))).isTrue();
		assertThat(fromRedis(this.closed.tryAcquire("k"))).isTrue();
	}

	@AfterEach
	void tearDown() {
		this.proxy.pass();
		this.proxy.accept();
		this.locks.close();
		this.availability.close();
		this.connections.destroy();
		this.proxy.close();
	}

	@Test
	void aBlackHoleCostsOneCommandTimeoutThenEachCallGetsThePolicyAtOnceAndTheSameLinkCarriesOnAfterHealing()
			throws Exception {
		this.proxy.blackhole();
		Timed<RateLimitDecision> found = timed(() -> this.closed.tryAcquire("k"));
		Timed<RateLimitDecision> allowed = timed(() -> this.open.tryAcquire("k"));
		Timed<RateLimitDecision> rejected = timed(() -> this.closed.tryAcquire("k"));
		long started = System.nanoTime();
		assertThatExceptionOfType(RedisUnavailableException.class)
			.isThrownBy(() -> this.lock.tryLock(Duration.ofSeconds(5)));
		Duration lockRefused = Duration.ofNanos(System.nanoTime() - started);
		this.proxy.pass();
		long healed = System.nanoTime();
		await("a decision from Redis after healing", () -> fromRedis(this.open.tryAcquire("k")));
		Duration back = Duration.ofNanos(System.nanoTime() - healed);
		System.out.printf("network fault figures, black hole: the call that found it %d ms, then %d / %d / %d ms "
				+ "(fail-open, fail-closed, lock); decisions from Redis %d ms after healing (command timeout %d ms, "
				+ "probe %d ms)%n", found.took.toMillis(), allowed.took.toMillis(), rejected.took.toMillis(),
				lockRefused.toMillis(), back.toMillis(), COMMAND_TIMEOUT.toMillis(), PROBE_INTERVAL.toMillis());
		// The call that found the black hole: the fail-closed policy after one command timeout, not a hang.
		assertThat(found.value.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		assertThat(found.value.fromFailurePolicy()).isTrue();
		assertThat(found.took).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.dividedBy(2))
			.isLessThan(COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(this.failures.get(0)).isInstanceOf(QueryTimeoutException.class);
		// Every later call: its policy at once, while the link is still a black hole.
		assertThat(allowed.value.outcome()).isEqualTo(Outcome.ERROR_ALLOWED);
		assertThat(rejected.value.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		assertThat(allowed.took).isLessThan(AT_ONCE);
		assertThat(rejected.took).isLessThan(AT_ONCE);
		assertThat(lockRefused).isLessThan(AT_ONCE);
		// Healed: the held link answers again, with no reconnection; the lock works.
		assertThat(this.proxy.acceptedConnections()).isEqualTo(1);
		assertThat(fromRedis(this.closed.tryAcquire("k"))).isTrue();
		assertThat(this.lock.tryLock()).isTrue();
		this.lock.unlock();
	}

	@Test
	void aResetFailsTheFirstCallInFlightAtOnceTheOthersAtTheirTimeoutAndTheClientReconnects() throws Exception {
		this.proxy.blackhole();
		long before = this.proxy.bytesFromClients();
		CompletableFuture<RateLimitDecision> inFlight = this.closed.tryAcquireAsync("k").toCompletableFuture();
		await("the call to leave the client", () -> this.proxy.bytesFromClients() > before);
		long second = this.proxy.bytesFromClients();
		CompletableFuture<Lease> lockInFlight = this.lock.acquireAsync(Duration.ZERO).toCompletableFuture();
		await("the lock call to leave the client", () -> this.proxy.bytesFromClients() > second);
		// A half-open link found out: both ends get a RST, and the client's reconnections are refused until accept().
		this.proxy.refuse();
		long reset = System.nanoTime();
		this.proxy.reset();
		RateLimitDecision decision = inFlight.get(10, TimeUnit.SECONDS);
		Duration failedAfter = Duration.ofNanos(System.nanoTime() - reset);
		Throwable lockFailure = catchThrowable(() -> lockInFlight.get(10, TimeUnit.SECONDS));
		Duration lockFailedAfter = Duration.ofNanos(System.nanoTime() - reset);
		Timed<RateLimitDecision> next = timed(() -> this.open.tryAcquire("k"));
		this.proxy.pass();
		this.proxy.accept();
		long healed = System.nanoTime();
		await("a decision from Redis after the reconnection", () -> fromRedis(this.open.tryAcquire("k")));
		Duration back = Duration.ofNanos(System.nanoTime() - healed);
		System.out.printf("network fault figures, reset: the first call in flight answered %d ms after the reset "
				+ "(%s, %s), the second failed after %d ms (%s), the next call answered in %d ms; decisions from Redis "
				+ "%d ms after accepting again, %d connections accepted%n", failedAfter.toMillis(), decision.outcome(),
				this.failures.get(0), lockFailedAfter.toMillis(), lockFailure.getCause(), next.took.toMillis(),
				back.toMillis(), this.proxy.acceptedConnections());
		// The first command in flight fails with the reset, as an outage: the policy decides, at once.
		assertThat(decision.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		assertThat(failedAfter).isLessThan(COMMAND_TIMEOUT.dividedBy(2));
		assertThat(this.failures.get(0)).isInstanceOf(RedisConnectionFailureException.class)
			.hasMessageContaining("reset");
		// Lettuce keeps the others to send again once it reconnects (at-least-once); refused, they fail at their
		// command timeout, as an outage.
		assertThat(lockFailure).isInstanceOf(ExecutionException.class)
			.hasCauseInstanceOf(QueryTimeoutException.class);
		assertThat(lockFailedAfter).isLessThan(COMMAND_TIMEOUT.multipliedBy(3));
		assertThat(next.value.outcome()).isEqualTo(Outcome.ERROR_ALLOWED);
		assertThat(next.took).isLessThan(AT_ONCE);
		assertThat(this.proxy.acceptedConnections()).isGreaterThan(1);
		assertThat(this.lock.tryLock()).isTrue();
		this.lock.unlock();
	}

	private static boolean fromRedis(RateLimitDecision decision) {
		return !decision.fromFailurePolicy();
	}

	private static <T> Timed<T> timed(Supplier<T> call) {
		long started = System.nanoTime();
		T value = call.get();
		return new Timed<>(value, Duration.ofNanos(System.nanoTime() - started));
	}

	private static void await(String what, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Timed out after 10 s waiting for " + what);
			}
			TimeUnit.MILLISECONDS.sleep(5);
		}
	}

	private record Timed<T>(T value, Duration took) {
	}

}

package io.rediskit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.ClientOptions;
import io.rediskit.ratelimit.RateLimitDecision.Outcome;
import io.rediskit.ratelimit.RateLimitLoad.Granted;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Redis paused ({@code SIGSTOP}), killed and restarted, scripts flushed: the failure policy answers within the
 * command timeout, and decisions resume when Redis is back.
 */
class RateLimitOutageTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	final List<String> failures = new CopyOnWriteArrayList<>();

	final List<Throwable> causes = new CopyOnWriteArrayList<>();

	RateLimiterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		this.registry = new RateLimiterRegistry(this.connections, KeyNaming.defaults(), new RateLimitListener() {

			@Override
			public void onFailure(String limiterName, RuntimeException failure) {
				RateLimitOutageTests.this.failures.add(limiterName + " " + failure.getClass().getSimpleName());
				for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
					RateLimitOutageTests.this.causes.add(cause);
				}
			}

		});
	}

	@AfterEach
	void tearDown() {
		if (this.server.isAlive()) {
			this.server.resume();
		}
		this.connections.destroy();
	}

	@Test
	void aPausedServerGetsEachLimiterItsPolicyWithinTheCommandTimeout() {
		RateLimiter open = this.registry.create("open", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofMinutes(1)));
		RateLimiter closed = this.registry.create("closed", RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 5,
				Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		// Connect first: a pause before the first connection would fail with a connection error instead.
		assertThat(open.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
		assertThat(closed.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
		this.server.pause();
		try {
			long started = System.nanoTime();
			RateLimitDecision allowed = open.tryAcquire("k");
			RateLimitDecision denied = closed.tryAcquire("k");
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(allowed).isEqualTo(new RateLimitDecision(Outcome.ERROR_ALLOWED, 5, 0, Duration.ZERO, Duration.ZERO));
			assertThat(denied).isEqualTo(new RateLimitDecision(Outcome.ERROR_REJECTED, 5, 0,
					RateLimitDecision.FAILURE_RETRY_AFTER, Duration.ZERO));
			// Two decisions, each waiting one command timeout and no more (generous slack for a loaded machine).
			assertThat(took).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.multipliedBy(2)).isLessThan(COMMAND_TIMEOUT.multipliedBy(8));
			assertThat(this.failures).containsExactly("open QueryTimeoutException", "closed QueryTimeoutException");
		}
		finally {
			this.server.resume();
		}
		assertThat(open.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
		assertThat(closed.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
	}

	@Test
	void aServerBusyWithAScriptGetsThePolicyAndDecidesAgainOnceTheScriptIsKilled() throws Exception {
		RateLimiter closed = this.registry.create("closed", RateLimitSpec.of(RateLimitAlgorithm.SLIDING_WINDOW, 5,
				Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(closed.tryAcquire("k").allowed()).isTrue();
		this.server.command("CONFIG", "SET", "lua-time-limit", "50");
		Thread busy = new Thread(() -> {
			try {
				this.server.command("EVAL", "while true do end", "0");
			}
			catch (RuntimeException ex) {
				// Ended by SCRIPT KILL: its error reply is expected.
			}
		});
		busy.start();
		try {
			// Redis answers BUSY once the script has run past lua-time-limit: ask until it does.
			RateLimitDecision decision = awaitPolicyDecision(closed);
			assertThat(decision.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
			assertThat(this.failures).last().isEqualTo("closed RedisSystemException");
			assertThat(this.causes).anyMatch((cause) -> cause instanceof io.lettuce.core.RedisBusyException);
		}
		finally {
			this.server.command("SCRIPT", "KILL");
			busy.join(10_000);
		}
		assertThat(closed.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
	}

	@Test
	void aServerTurnedReadOnlyReplicaGetsThePolicyAndDecidesAgainWhenPromoted() {
		RateLimiter open = this.registry.create("open", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5,
				Duration.ofMinutes(1)));
		assertThat(open.tryAcquire("k").allowed()).isTrue();
		// A replica of a master that is not there, as a client still pointed at a demoted master sees it.
		this.server.command("REPLICAOF", "127.0.0.1", "1");
		try {
			RateLimitDecision decision = open.tryAcquire("k");
			assertThat(decision.outcome()).isEqualTo(Outcome.ERROR_ALLOWED);
			assertThat(this.causes).anyMatch((cause) -> cause instanceof io.lettuce.core.RedisReadOnlyException);
		}
		finally {
			this.server.command("REPLICAOF", "NO", "ONE");
		}
		assertThat(open.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
	}

	private static RateLimitDecision awaitPolicyDecision(RateLimiter limiter) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			// Probes on a key of their own: those answered before the busy script starts use up its permits.
			RateLimitDecision decision = limiter.tryAcquire("probe");
			if (decision.fromFailurePolicy() || System.nanoTime() - deadline > 0) {
				return decision;
			}
			Thread.onSpinWait();
		}
	}

	@Test
	void aClientThatRejectsCommandsWhileDisconnectedGetsThePolicyAtOnce() {
		LettuceConnectionFactory rejecting = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				LettuceClientConfiguration.builder()
					.commandTimeout(Duration.ofSeconds(30))
					.clientOptions(ClientOptions.builder()
						.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
						.build())
					.build());
		rejecting.afterPropertiesSet();
		rejecting.start();
		try {
			RateLimiter closed = new RateLimiterRegistry(rejecting, KeyNaming.defaults(), RateLimitListener.NONE)
				.create("rejecting", RateLimitSpec.of(RateLimitAlgorithm.GCRA, 5, Duration.ofMinutes(1))
					.withFailurePolicy(FailurePolicy.FAIL_CLOSED));
			assertThat(closed.tryAcquire("k").allowed()).isTrue();
			this.server.kill();
			long started = System.nanoTime();
			RateLimitDecision whileDown = closed.tryAcquire("k");
			// Rejected by the client, not timed out: well before the 30 s command timeout.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
			assertThat(whileDown.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		}
		finally {
			rejecting.destroy();
			this.server.restart();
		}
	}

	@Test
	void aKilledServerGetsThePolicyAndARestartedOneDecidesAgain() throws Exception {
		RateLimiter closed = this.registry.create("closed", RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 5,
				Duration.ofMinutes(1)).withFailurePolicy(FailurePolicy.FAIL_CLOSED));
		assertThat(closed.tryAcquire("k").allowed()).isTrue();
		this.server.kill();
		RateLimitDecision whileDown = closed.tryAcquire("k");
		assertThat(whileDown.outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		assertThat(whileDown.fromFailurePolicy()).isTrue();
		// acquire() does not wait for a server that is down: each attempt already cost a timeout.
		assertThat(closed.acquire("k", 1, Duration.ofSeconds(30)).outcome()).isEqualTo(Outcome.ERROR_REJECTED);
		this.server.restart();
		RateLimitDecision afterRestart = null;
		for (int attempt = 0; attempt < 100; attempt++) {
			afterRestart = closed.tryAcquire("k");
			if (!afterRestart.fromFailurePolicy()) {
				break;
			}
			TimeUnit.MILLISECONDS.sleep(100);
		}
		// The restarted server lost its data (no persistence) and its scripts: a fresh bucket, script re-sent.
		assertThat(afterRestart).isNotNull();
		assertThat(afterRestart.outcome()).isEqualTo(Outcome.ALLOWED);
		assertThat(afterRestart.remaining()).isEqualTo(4);
	}

	@Test
	void anErrorThatIsNotAnOutageIsThrownNotHiddenByThePolicy() {
		RateLimiter limiter = this.registry.create("typed", RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 5,
				Duration.ofMinutes(1)));
		this.server.command("SET", RateLimitTesting.redisKey(RateLimitAlgorithm.SLIDING_LOG, "typed", "k"), "a string");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> limiter.tryAcquire("k"))
			.withStackTraceContaining("WRONGTYPE");
		assertThat(this.failures).isEmpty();
	}

	@Test
	void scriptsFlushedUnderLoadAreReloadedAndEveryDecisionStillCounts() throws Exception {
		RateLimitSpec spec = RateLimitSpec.of(RateLimitAlgorithm.SLIDING_LOG, 50, Duration.ofMillis(200));
		RedisRateLimiter limiter = RateLimitTesting.internal(this.registry.create("flushed", spec));
		AtomicBoolean running = new AtomicBoolean(true);
		Thread flusher = new Thread(() -> {
			while (running.get()) {
				this.server.command("SCRIPT", "FLUSH");
				try {
					TimeUnit.MILLISECONDS.sleep(20);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		flusher.start();
		List<Granted> admitted;
		try {
			admitted = RateLimitLoad.run(limiter, "k", 16, TimeUnit.MILLISECONDS.toNanos(1000), 1);
		}
		finally {
			running.set(false);
			flusher.join();
		}
		AdmissionChecker.assertHolds(spec, admitted.stream().map(Granted::admission).toList());
		assertThat(admitted).hasSizeGreaterThan(50);
		assertThat(this.failures).isEmpty();
	}

}

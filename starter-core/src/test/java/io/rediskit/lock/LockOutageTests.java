package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.rediskit.lock.LockTesting.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** A Redis server that stops answering ({@code SIGSTOP}) and comes back ({@code SIGCONT}). */
class LockOutageTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	LockTesting.RecordingListener listener = new LockTesting.RecordingListener();

	LockRegistry factory;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		this.factory = LockTesting.observed(new LockRegistry(ScriptExecutor.of(this.connections), this.connections,
				KeyNaming.defaults(), LockSpec.defaults().withWatchdogTimeout(Duration.ofMillis(900)),
				List.of(this.listener), java.time.Clock.systemUTC()), this.listener);
	}

	@AfterEach
	void tearDown() {
		if (this.server.isAlive()) {
			this.server.resume();
		}
		this.factory.close();
		this.connections.destroy();
	}

	@Test
	void callsFailAtTheCommandTimeoutWhilePausedAndRecoverAfterwards() throws Exception {
		RedisLock lock = this.factory.getLock("paused");
		// Connect first: a pause before the first connection would fail with a connection error instead.
		assertThat(lock.isLocked()).isFalse();
		this.server.pause();
		try {
			long started = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> lock.tryLock(Duration.ofSeconds(5)))
				.withMessageContaining("timed out");
			// The failed attempt and its undo each wait one command timeout at most.
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMAND_TIMEOUT.multipliedBy(6));
			assertThat(this.listener.events).contains("acquire paused ERROR");
		}
		finally {
			this.server.resume();
		}
		// The undo may have been dropped with the timeout; either way no key outlives its lease.
		assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void anAcquisitionFailsAfterOneCommandTimeoutWhilePausedAndItsUndoRunsWhenRedisAnswersAgain() {
		RedisLock lock = this.factory.getLock("one-timeout");
		// Connect and start first: a pause before the first connection would fail with a connection error instead.
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		Logger registryLogger = (Logger) LoggerFactory.getLogger(LockRegistry.class);
		registryLogger.addAppender(log);
		this.server.pause();
		try {
			for (int i = 0; i < 3; i++) {
				long started = System.nanoTime();
				// A lease of a minute: only the undo, not the lease, can end what the attempts take on resume.
				assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> lock.tryLock(Duration.ofSeconds(5), Duration.ofMinutes(1)));
				assertThat(Duration.ofNanos(System.nanoTime() - started)).as("attempt %d", i)
					.isGreaterThanOrEqualTo(COMMAND_TIMEOUT)
					.isLessThan(COMMAND_TIMEOUT.multipliedBy(2));
			}
		}
		finally {
			this.server.resume();
			registryLogger.detachAppender(log);
		}
		// The paused server runs each attempt and then its undo: nothing is left, long before the lease would end.
		awaitCondition("the undone acquisitions to leave no key", Duration.ofSeconds(5),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{one-timeout}")));
		assertThat(this.factory.heldLocks()).isEmpty();
		assertThat(this.listener.count("acquire one-timeout ERROR")).isEqualTo(3);
		assertThat(log.list).as("one warning for the outage, without a stack trace").singleElement().satisfies((event) -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains("cannot reach Redis");
			assertThat(event.getThrowableProxy()).isNull();
		});
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void aHolderCutOffFromRedisLosesTheLockAndDoesNotReviveIt() throws Exception {
		RedisLock lock = this.factory.getLock("cut-off");
		Lease lease = lock.acquire(Duration.ZERO);
		RedisLock other = this.factory.getLock("other");
		this.server.pause();
		try {
			awaitCondition("the watchdog to give the lease up", Duration.ofSeconds(10),
					() -> this.listener.count("lost cut-off") == 1);
			assertThat(this.listener.events).contains("renewal cut-off ERROR");
		}
		finally {
			this.server.resume();
		}
		assertThat(lease.isActive()).isFalse();
		// The key expired while the server was paused (expiry follows the server's clock).
		awaitCondition("the lost key to expire", Duration.ofSeconds(5),
				() -> Long.valueOf(0).equals(this.server.command("EXISTS", "rk:lock:{cut-off}")));
		assertThatExceptionOfType(LockLeaseLostException.class).isThrownBy(lease::close);
		// Renewal of other locks resumes after healing.
		other.lock();
		int renewedBefore = (int) this.listener.count("renewal other RENEWED");
		awaitCondition("renewals to resume", Duration.ofSeconds(10),
				() -> this.listener.count("renewal other RENEWED") >= renewedBefore + 2);
		assertThat(this.server.command("EXISTS", "rk:lock:{cut-off}")).isEqualTo(0L);
		other.unlock();
	}

	@Test
	void anUnlockThatCannotReachRedisAbandonsTheHoldInsteadOfRenewingIt() throws Exception {
		RedisLock lock = this.factory.getLock("abandoned");
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<?> holder = executor.submit(() -> {
				lock.lock();
				this.server.pause();
				try {
					lock.unlock();
				}
				finally {
					this.server.resume();
				}
			});
			assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
				.isThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(QueryTimeoutException.class);
			assertThat(this.factory.heldLocks()).isEmpty();
			// Whether or not the timed-out release ran, nobody renews the key: it is gone within its lease.
			awaitCondition("the abandoned lock to end", Duration.ofSeconds(5), () -> !lock.isLocked());
		}
		finally {
			executor.shutdownNow();
		}
	}

}

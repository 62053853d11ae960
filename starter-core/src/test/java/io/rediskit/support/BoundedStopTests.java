package io.rediskit.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Every wait of a stop ends: a stop that never completes, or a lock never given back, is given up after the bound. */
class BoundedStopTests {

	/** A hang detector only: far beyond {@link BoundedStop#TIMEOUT}. */
	static final Duration HANG = Duration.ofSeconds(60);

	final ListAppender<ILoggingEvent> log = new ListAppender<>();

	final CountDownLatch never = new CountDownLatch(1);

	@BeforeEach
	void capture() {
		this.log.start();
		((Logger) LoggerFactory.getLogger(BoundedStop.class)).addAppender(this.log);
	}

	@AfterEach
	void release() {
		this.never.countDown();
		((Logger) LoggerFactory.getLogger(BoundedStop.class)).detachAppender(this.log);
	}

	@Test
	void aStopThatNeverCompletesIsWaitedForUpToItsBoundAndAnInterruptNeitherShortensNorIsLost() {
		Thread.currentThread().interrupt();
		long started = System.nanoTime();
		boolean done = BoundedStop.await(new CompletableFuture<>(), Duration.ofMillis(200), "a consumer");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
		assertThat(Thread.interrupted()).as("interrupt flag restored").isTrue();
		assertThat(done).isFalse();
		assertThat(BoundedStop.await(CompletableFuture.failedFuture(new IllegalStateException()), Duration.ZERO,
				"a failed consumer"))
			.isTrue();
		assertThat(warnings()).singleElement().asString().contains("a consumer");
	}

	@Test
	void aLockHeldByAStepInProgressIsGivenUpAfterTheBound() throws Exception {
		ReentrantLock lock = new ReentrantLock();
		Thread holder = new Thread(() -> {
			lock.lock();
			try {
				this.never.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		}, "holding-the-lock");
		holder.setDaemon(true);
		holder.start();
		while (!lock.isLocked()) {
			Thread.onSpinWait();
		}
		boolean locked = assertTimeoutPreemptively(HANG, () -> BoundedStop.lock(lock, "a subscription"));
		assertThat(locked).isFalse();
		assertThat(warnings()).singleElement().asString().contains("a subscription");
		this.never.countDown();
		holder.join(HANG.toMillis());
		assertThat(BoundedStop.lock(lock, "a subscription")).isTrue();
		lock.unlock();
	}

	private List<String> warnings() {
		return this.log.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

}

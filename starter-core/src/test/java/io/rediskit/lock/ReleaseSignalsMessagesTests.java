package io.rediskit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.support.Background;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.ReleaseSignals;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a release message wakes among the local waiters of one channel: an owner id that owner's waiter only (a
 * fair lock's next in line), {@code *} every waiter (a read-write lock whose readers may all go), anything else
 * the next waiter (the lock).
 */
class ReleaseSignalsMessagesTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	@Test
	void anOwnerIdWakesThatOwnerAndAStarWakesEveryone() throws Exception {
		ReleaseSignals signals = new ReleaseSignals(redis.connections(), "the test's channels");
		Background background = Background.standalone("signals-test");
		signals.start(background);
		try {
			AtomicInteger first = new AtomicInteger();
			AtomicInteger second = new AtomicInteger();
			AtomicInteger third = new AtomicInteger();
			CompletableFuture<Void> subscribed = new CompletableFuture<>();
			// The first join subscribes the channel and is woken once when the subscription is made.
			ReleaseSignals.Waiter one = signals.joinAsync("test:released", "instance:t1", 1000, () -> {
				if (first.incrementAndGet() == 1) {
					subscribed.complete(null);
				}
			});
			subscribed.get(10, java.util.concurrent.TimeUnit.SECONDS);
			one.consumeSignal();
			first.set(0);
			ReleaseSignals.Waiter two = signals.joinAsync("test:released", "instance:t2", 1000, second::incrementAndGet);
			ReleaseSignals.Waiter three = signals.joinAsync("test:released", "instance:t3", 1000, third::incrementAndGet);

			redis.server().command("PUBLISH", "test:released", "instance:t2");
			LockTesting.awaitCondition("the owner named woken", Duration.ofSeconds(5), () -> second.get() == 1);
			// One message is handled by one call, which looks at the waiters in order: the first was passed over.
			assertThat(first.get()).as("the first waiter").isZero();
			assertThat(third.get()).as("the third waiter").isZero();
			two.consumeSignal();

			redis.server().command("PUBLISH", "test:released", ReleaseSignals.WAKE_ALL);
			LockTesting.awaitCondition("every waiter woken", Duration.ofSeconds(5),
					() -> first.get() == 1 && second.get() == 2 && third.get() == 1);
			one.consumeSignal();
			two.consumeSignal();
			three.consumeSignal();

			redis.server().command("PUBLISH", "test:released", "1");
			LockTesting.awaitCondition("the next waiter woken", Duration.ofSeconds(5), () -> first.get() == 2);
			assertThat(second.get()).isEqualTo(2);
			assertThat(third.get()).isEqualTo(1);
			signals.leave(one);
			signals.leave(two);
			signals.leave(three);
		}
		finally {
			signals.stop();
			background.close();
		}
	}

}

package io.rediskit.bloom;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockTesting;
import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeding across instances: one instance seeds under the lock {@code bloom-seed:<filter>}; another that asks
 * meanwhile waits for the lock without holding a thread of its executor, and once it gets the lock seeds only if the
 * filter is still not complete.
 */
class BloomSeederTests {

	static final String RELEASED = "rk:lock:{bloom-seed:users}:released";

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<AutoCloseable> resources = new ArrayList<>();

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@AfterEach
	void close() throws Exception {
		// Last made, first closed, as Spring destroys beans.
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	/** An application instance: its connection, lock registry and filter registry, seeding on its own executor. */
	Instance instance(Supplier<List<String>> source) {
		LettuceConnectionFactory connections = TestConnections.lettuce(redis.server());
		this.resources.add(connections::destroy);
		LockRegistry locks = new LockRegistry(connections);
		this.resources.add(locks::close);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		this.resources.add(pool::shutdownNow);
		AtomicInteger tasks = new AtomicInteger();
		Background background = Background.of(null, (task) -> {
			tasks.incrementAndGet();
			pool.execute(task);
		});
		this.resources.add(background);
		AtomicInteger reads = new AtomicInteger();
		BloomFilterRegistry filters = new BloomFilterRegistry(connections, KeyNaming.defaults(), BloomFilterListener.NONE);
		filters.setLocks(locks);
		filters.setBackground(background);
		filters.setSeed(BloomFilterSeed.of("users", () -> {
			reads.incrementAndGet();
			return source.get();
		}));
		filters.create("users", BloomFilterSpec.of(10_000, 0.01));
		return new Instance(filters, tasks, reads);
	}

	@Test
	void anInstanceWaitingForAnothersSeedingHoldsNoThreadAndSeedsOnlyIfTheFilterIsStillNotComplete()
			throws Exception {
		CountDownLatch reading = new CountDownLatch(1);
		CountDownLatch hold = new CountDownLatch(1);
		Instance first = instance(heldUntil(reading, hold, () -> List.of("7", "8")));
		Instance second = instance(() -> List.of("7", "8"));
		CompletableFuture<Boolean> byFirst = first.filters().seedAsync("users").toCompletableFuture();
		assertThat(reading.await(30, TimeUnit.SECONDS)).as("the first reads its source, under the lock").isTrue();
		CompletableFuture<Boolean> bySecond = second.filters().seedAsync("users").toCompletableFuture();
		// The second has tried the lock and found it held once it listens for the lock's release.
		LockTesting.awaitCondition("the second waiting for the lock", Duration.ofSeconds(30),
				() -> Long.valueOf(1).equals(((List<?>) redis.server().command("PUBSUB", "NUMSUB", RELEASED)).get(1)));
		assertThat(bySecond).isNotDone();
		assertThat(second.tasks()).as("no thread of the second's executor waits for the lock").hasValue(0);
		assertThat(first.tasks()).as("the first's seeding, on its executor").hasValue(1);

		hold.countDown();
		assertThat(byFirst.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(bySecond.get(30, TimeUnit.SECONDS)).as("complete once the second holds the lock").isTrue();
		assertThat(second.tasks()).as("one task once the lock is held: the filter found complete").hasValue(1);
		assertThat(second.reads()).as("the second did not seed again").hasValue(0);
		assertThat(first.reads()).hasValue(1);
		assertThat(second.filters().get("users").check("9")).isEqualTo(BloomAnswer.NEVER_SEEN);
		assertThat(redis.server().command("EXISTS", "rk:lock:{bloom-seed:users}")).as("the lock released").isEqualTo(0L);
	}

	@Test
	void anInstanceThatGetsTheLockAfterAnotherSeedingFailedSeedsItself() throws Exception {
		CountDownLatch reading = new CountDownLatch(1);
		CountDownLatch hold = new CountDownLatch(1);
		Instance first = instance(heldUntil(reading, hold, () -> {
			throw new IllegalStateException("the table cannot be read");
		}));
		Instance second = instance(() -> List.of("7", "8"));
		CompletableFuture<Boolean> byFirst = first.filters().seedAsync("users").toCompletableFuture();
		assertThat(reading.await(30, TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> bySecond = second.filters().seedAsync("users").toCompletableFuture();
		LockTesting.awaitCondition("the second waiting for the lock", Duration.ofSeconds(30),
				() -> Long.valueOf(1).equals(((List<?>) redis.server().command("PUBSUB", "NUMSUB", RELEASED)).get(1)));
		hold.countDown();
		assertThat(byFirst).failsWithin(Duration.ofSeconds(30));
		assertThat(bySecond.get(30, TimeUnit.SECONDS)).as("still not complete when the second got the lock").isTrue();
		assertThat(second.reads()).hasValue(1);
		assertThat(second.filters().get("users").check("8")).isEqualTo(BloomAnswer.SEEN);
		assertThat(second.filters().get("users").check("9")).isEqualTo(BloomAnswer.NEVER_SEEN);
	}

	/**
	 * A source that says it is being read, then waits for {@code hold} before it answers: the instance reading it
	 * holds the seeding lock meanwhile.
	 */
	static Supplier<List<String>> heldUntil(CountDownLatch reading, CountDownLatch hold,
			Supplier<List<String>> answer) {
		return () -> {
			reading.countDown();
			try {
				assertThat(hold.await(60, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return answer.get();
		};
	}

	record Instance(BloomFilterRegistry filters, AtomicInteger tasks, AtomicInteger reads) {
	}

}

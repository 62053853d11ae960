package io.rediskit.lock;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the single-node lock offers, on every topology: the state of a thread's holds ({@link RedisLock#isLocked},
 * {@link RedisLock#isHeldByCurrentThread}, {@link RedisLock#holdCount}) as Redis and this client see it.
 * Everything both engines share is in {@link LockContractTests}.
 */
class RedisLockTopologyTests extends TopologyContract {

	@Test
	void threadHoldsAreCountedAndSeenOnTheServerThatOwnsTheKey() throws Exception {
		String name = this.redis.unique("held");
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (LockRegistry registry = new LockRegistry(TopologyScripts.of(this.redis), this.redis.connections(),
				KeyNaming.defaults(), LockSpec.defaults(), List.of(), Clock.systemUTC())) {
			RedisLock lock = registry.getLock(name);
			lock.lock();
			lock.lock();
			assertThat(lock.holdCount()).isEqualTo(2);
			assertThat(lock.isHeldByCurrentThread()).isTrue();
			assertThat(executor.submit(lock::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isFalse();
			assertThat(executor.submit(lock::isLocked).get(10, TimeUnit.SECONDS)).as("asked of Redis").isTrue();
			assertThat(this.redis.exists(LockEngine.key(name))).as("on the server that owns its slot").isTrue();
			lock.unlock();
			assertThat(lock.holdCount()).isOne();
			assertThat(lock.isLocked()).isTrue();
			lock.unlock();
			assertThat(lock.holdCount()).isZero();
			assertThat(lock.isLocked()).isFalse();
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(this.redis.exists(LockEngine.key(name))).isFalse();
	}

}

package io.rediskit.autoconfigure;

import io.rediskit.autoconfigure.cache.CacheProperties;
import io.rediskit.autoconfigure.lock.FairLockProperties;
import io.rediskit.autoconfigure.lock.LatchProperties;
import io.rediskit.autoconfigure.lock.ReadWriteLockProperties;
import io.rediskit.autoconfigure.queue.QueueProperties;
import io.rediskit.cache.CacheSpec;
import io.rediskit.cache.NearCacheSpec;
import io.rediskit.latch.LatchSpec;
import io.rediskit.lock.WaiterLineSpec;
import io.rediskit.queue.QueueSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Properties whose defaults are written as literals, so that the configuration metadata (and the IDE) shows them:
 * the annotation processor cannot read a constant of another module. Each literal must equal the core's default.
 */
class PropertyDefaultsTests {

	@Test
	void literalDefaultsEqualTheCoresConstants() {
		CacheProperties cache = new CacheProperties();
		assertThat(cache.getTtl()).isEqualTo(CacheSpec.DEFAULT_TTL);
		assertThat(cache.getTtlJitter()).isEqualTo(CacheSpec.DEFAULT_TTL_JITTER);
		assertThat(cache.getNullTtl()).isEqualTo(CacheSpec.DEFAULT_NULL_TTL);
		assertThat(cache.getLoadTimeout()).isEqualTo(CacheSpec.DEFAULT_LOAD_TIMEOUT);
		assertThat(cache.getNearCache().getMaxEntries()).isEqualTo(NearCacheSpec.DEFAULT_MAX_ENTRIES);
		assertThat(cache.getNearCache().getTtl()).isEqualTo(NearCacheSpec.DEFAULT_TTL);
		LatchProperties latch = new LatchProperties();
		assertThat(latch.getAbandonedAfter()).isEqualTo(LatchSpec.DEFAULT_ABANDONED_AFTER);
		assertThat(latch.getOpenFor()).isEqualTo(LatchSpec.DEFAULT_OPEN_FOR);
		assertThat(new FairLockProperties().getWaiterTimeout()).isEqualTo(WaiterLineSpec.DEFAULT_WAITER_TIMEOUT);
		assertThat(new ReadWriteLockProperties().getWaiterTimeout()).isEqualTo(WaiterLineSpec.DEFAULT_WAITER_TIMEOUT);
		// The queues' shared delivery policies: a queue that sets nothing has the core's default spec.
		QueueProperties queues = new QueueProperties();
		QueueSpec queue = QueueSpec.defaults();
		assertThat(queues.getVisibilityTimeout()).isEqualTo(queue.visibilityTimeout());
		assertThat(queues.getMaxDeliveries()).isEqualTo(queue.maxDeliveries());
		assertThat(queues.getInitialBackoff()).isEqualTo(queue.initialBackoff());
		assertThat(queues.getMaxBackoff()).isEqualTo(queue.maxBackoff());
		assertThat(queues.getBackoffMultiplier()).isEqualTo(queue.backoffMultiplier());
		assertThat(queues.getBackoffJitter()).isEqualTo(queue.backoffJitter());
		assertThat(queues.getDeadLetterRetention()).isEqualTo(queue.deadLetterRetention());
		assertThat(queues.getDeadLetterMaxSize()).isEqualTo(queue.deadLetterMaxSize());
		QueueProperties.Queue one = new QueueProperties.Queue();
		assertThat(one.getMaxPayloadSize().toBytes()).isEqualTo(queue.maxPayloadSize());
		assertThat(one.getPollInterval()).isEqualTo(queue.pollInterval());
		assertThat(one.getDefaultPriority()).isEqualTo(queue.defaultPriority());
		assertThat(one.getMaxInFlight()).isEqualTo(queue.maxInFlight());
		assertThat(one.getRateLimit()).isEqualTo(queue.rateLimit());
		assertThat(one.getRateLimitPeriod()).isEqualTo(queue.rateLimitPeriod());
	}

}

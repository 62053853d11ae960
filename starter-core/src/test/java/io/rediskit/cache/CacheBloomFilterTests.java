package io.rediskit.cache;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.cache.Cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Bloom filter in front of a cache: a key the filter has never seen is a cached null without a read of the entry,
 * a lease or a load, synchronous or not; a key it has seen is cached as usual; a put registers its key.
 */
class CacheBloomFilterTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final RecordingCacheListener events = new RecordingCacheListener();

	BloomFilterRegistry filters;

	RedisKitCacheManager manager;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.filters = new BloomFilterRegistry(redis.connections(), KeyNaming.defaults(), BloomFilterListener.NONE);
		this.filters.create("product-ids", BloomFilterSpec.of(1_000, 0.001));
		this.manager = CacheTesting.manager(redis.connections(), CacheSpec.defaults().withBloomFilter("product-ids"),
				List.of(this.events), this.filters);
	}

	@AfterEach
	void tearDown() {
		this.manager.close();
	}

	@Test
	void aKeyTheFilterHasNeverSeenIsANullWithoutAReadALeaseOrALoad() throws Exception {
		Cache cache = this.manager.getCache("products");
		AtomicInteger loads = new AtomicInteger();
		assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isNull();
		assertThat(cache.get("p-404")).isNotNull().extracting(Cache.ValueWrapper::get).isNull();
		assertThat(cache.retrieve("p-404", () -> java.util.concurrent.CompletableFuture.completedFuture("loaded"))
			.get()).isNull();
		assertThat(loads.get()).isZero();
		assertThat(this.events.count("filtered products")).isEqualTo(3);
		assertThat(redis.server().command("EXISTS", "rk:cache:{products:p-404}", "rk:cache:{products:p-404}:load"))
			.isEqualTo(0L);
		assertThat(this.events.events).doesNotContain("miss products");
	}

	@Test
	void aKeyTheFilterHasSeenIsLoadedAndCachedAndAPutRegistersItsKey() {
		Cache cache = this.manager.getCache("products");
		this.filters.get("product-ids").add("p-1");
		assertThat(cache.get("p-1", () -> "lamp")).isEqualTo("lamp");
		assertThat(cache.get("p-1").get()).isEqualTo("lamp");
		cache.put("p-2", "desk");
		assertThat(this.filters.get("product-ids").mightContain("p-2")).isTrue();
		assertThat(cache.get("p-2", () -> "not called")).isEqualTo("desk");
	}

	@Test
	void aCacheNamingAFilterThatDoesNotExistFailsWhenTheManagerIsBuilt() {
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> CacheTesting.manager(redis.connections(),
					CacheSpec.defaults().withBloomFilter("nowhere"), List.of(), this.filters))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("bloomFilter"))
			.withMessageContaining("nowhere");
	}

}

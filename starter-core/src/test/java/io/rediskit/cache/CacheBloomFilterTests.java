package io.rediskit.cache;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.rediskit.bloom.BloomAnswer;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterListener;
import io.rediskit.bloom.BloomFilterSeed;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomGrowth;
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
 * A Bloom filter in front of a cache: a key a complete filter has never seen is a cached null without a read of the
 * entry, a lease or a load, synchronous or not; a key it has seen is cached as usual; a put registers its key; a
 * filter lost in Redis, or created anew by a put since, never hides an entry, and is seeded again from its source.
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
		this.filters.create("product-ids", BloomFilterSpec.of(1_000, 0.001)).seed(List.of());
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
	void aFilterLostInRedisOrRecreatedByAPutNeverHidesAnEntryUntilItIsSeededAgain() throws Exception {
		Cache cache = this.manager.getCache("products");
		BloomFilter filter = this.filters.get("product-ids");
		assertThat(filter.seed(List.of("p-1", "p-2"))).isTrue();
		AtomicInteger loads = new AtomicInteger();
		assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isNull();
		assertThat(loads).hasValue(0);
		// A restart without persistence, a FLUSHALL, a failover that dropped the filter's key.
		redis.flushAll();
		assertThat(cache.get("p-1", () -> "lamp " + loads.incrementAndGet())).isEqualTo("lamp 1");
		assertThat(cache.retrieve("p-2", () -> CompletableFuture.completedFuture("desk " + loads.incrementAndGet()))
			.get(10, TimeUnit.SECONDS)).isEqualTo("desk 2");
		// A put creates the filter again, holding its one key: every other key is still read and loaded.
		cache.put("p-3", "chair");
		assertThat(filter.check("p-3")).isEqualTo(BloomAnswer.SEEN);
		assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isEqualTo("loaded 3");
		cache.evict("p-404");
		assertThat(this.events.count("unfiltered products")).isEqualTo(3);
		assertThat(filter.seed(List.of("p-1", "p-2", "p-3"))).isTrue();
		assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isNull();
		assertThat(cache.get("p-1", () -> "not called")).isEqualTo("lamp 1");
		assertThat(loads).as("seeded again, unknown keys are filtered").hasValue(3);
	}

	@Test
	void aGrowingFilterThatLostALayerOnItsOwnNeverHidesAnEntryUntilItIsSeededAgain() {
		List<String> keys = IntStream.range(0, 300).mapToObj((i) -> "p-" + i).toList();
		BloomFilter filter = this.filters.create("growing-ids",
				BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT));
		assertThat(filter.seed(keys)).isTrue();
		RedisKitCacheManager growing = CacheTesting.manager(redis.connections(),
				CacheSpec.defaults().withBloomFilter("growing-ids"), List.of(this.events), this.filters);
		try {
			Cache cache = growing.getCache("products");
			// Evicted, expired or deleted by an operator: the first layer alone, the record and its mark stay.
			assertThat(redis.server().command("DEL", "rk:bloom:{growing-ids}:layer:0")).isEqualTo(1L);
			AtomicInteger loads = new AtomicInteger();
			for (String key : keys) {
				assertThat(cache.get(key, () -> "loaded " + loads.incrementAndGet())).as(key).isNotNull();
			}
			assertThat(loads).as("every key read and loaded, those of the lost layer too").hasValue(300);
			assertThat(filter.check("p-404")).isEqualTo(BloomAnswer.NOT_COMPLETE);
			assertThat(filter.seed(keys)).isTrue();
			assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isNull();
			assertThat(loads).as("seeded again, unknown keys are filtered").hasValue(300);
		}
		finally {
			growing.close();
		}
	}

	@Test
	void aFilterWithASeedIsSeededAgainByItselfOnceItIsFoundLost() throws Exception {
		AtomicInteger reads = new AtomicInteger();
		this.filters.setSeed(BloomFilterSeed.of("product-ids", () -> {
			reads.incrementAndGet();
			return List.of("p-1", "p-2");
		}));
		Cache cache = this.manager.getCache("products");
		redis.flushAll();
		AtomicInteger loads = new AtomicInteger();
		assertThat(cache.get("p-2", () -> "desk " + loads.incrementAndGet())).isEqualTo("desk 1");
		assertThat(this.filters.seedAsync("product-ids").toCompletableFuture().get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(reads).hasValue(1);
		assertThat(cache.get("p-404", () -> "loaded " + loads.incrementAndGet())).isNull();
		assertThat(cache.get("p-1", () -> "lamp " + loads.incrementAndGet())).isEqualTo("lamp 2");
		assertThat(this.events.count("filtered products")).isEqualTo(1);
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

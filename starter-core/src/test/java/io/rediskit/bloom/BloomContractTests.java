package io.rediskit.bloom;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What a Bloom filter promises on every topology (run once per {@link Topology}): batches in one
 * call, no false negatives, sizing stored with the bits, shards spread over a cluster's masters, hostile items.
 */
class BloomContractTests extends TopologyContract {

	BloomFilterRegistry registry() {
		return new BloomFilterRegistry(TopologyScripts.of(this.redis), CommandExecutor.of(this.redis.connections()),
				KeyNaming.defaults(), BloomMode.AUTO, List.of(), (name) -> null);
	}

	@Test
	void batchesAnswerInOrderWithNoFalseNegatives() throws Exception {
		BloomFilter filter = registry().create(this.redis.unique("seen"), BloomFilterSpec.of(5_000, 0.01));
		List<String> items = BloomFilterTests.items("m-", 0, 5_000);
		assertThat(filter.addAll(items).stream().filter((added) -> added).count()).isGreaterThan(4_900);
		assertThat(filter.mightContainAll(items)).doesNotContain(false);
		// Into a full filter, a new item may find all its bits set already: only the count of answers is certain.
		assertThat(filter.addAllAsync(List.of("{x}", "é", "")).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.hasSize(3);
		assertThat(filter.mightContainAsync("{x}").toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.redis.exists("rk:bloom:{" + filter.name() + "}")).isTrue();
		assertThat(filter.info().approximateItems()).isBetween(4_900L, 5_100L);
	}

	@Test
	void aNeverSeenIsTrustedOnlyFromACompleteFilterInEveryLayout() {
		BloomFilterRegistry registry = registry().maxShardBits(2_000);
		List<BloomFilter> filters = List.of(registry.create(this.redis.unique("whole"), BloomFilterSpec.of(1_000, 0.01)),
				registry.create(this.redis.unique("shards"), BloomFilterSpec.of(3_000, 0.01)),
				registry.create(this.redis.unique("layers"), BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT)));
		List<String> items = BloomFilterTests.items("c-", 0, 500);
		for (BloomFilter filter : filters) {
			assertThat(filter.check("c-1")).as("%s never seeded", filter.name()).isEqualTo(BloomAnswer.NOT_COMPLETE);
			filter.addAll(items);
			assertThat(filter.isComplete()).as("%s: adds alone make no filter complete", filter.name()).isFalse();
			assertThat(filter.seed(items)).isTrue();
			assertThat(filter.isComplete()).isTrue();
			assertThat(filter.check("c-1")).isEqualTo(BloomAnswer.SEEN);
			assertThat(filter.checkAsync("stranger").toCompletableFuture().join()).as("%s", filter.name())
				.isEqualTo(BloomAnswer.NEVER_SEEN);
			// Lost (here deleted), then created anew by one add: it holds that item only.
			filter.delete();
			assertThat(filter.check("c-1")).isEqualTo(BloomAnswer.NOT_COMPLETE);
			filter.add("c-2");
			assertThat(filter.check("c-1")).as("%s recreated by one add", filter.name()).isEqualTo(BloomAnswer.NOT_COMPLETE);
			assertThat(filter.isComplete()).isFalse();
			assertThat(filter.seed(items)).isTrue();
			assertThat(filter.check("stranger")).isEqualTo(BloomAnswer.NEVER_SEEN);
			assertThat(filter.mightContainAll(items)).doesNotContain(false);
		}
	}

	@Test
	void aFilterPartlyLostInRedisNeverAnswersNeverSeenForAnItemItHeld() {
		BloomFilterRegistry registry = registry().maxShardBits(2_000);
		List<String> items = BloomFilterTests.items("p-", 0, 500);
		// Eviction, an expiry or an operator's DEL takes one key of a filter and leaves its mark: the bitmap of a
		// filter of one shard (header and bits), one shard of several, one layer of a growing filter, its record.
		BloomFilter whole = registry().create(this.redis.unique("whole"), BloomFilterSpec.of(1_000, 0.01));
		BloomFilter shards = registry.create(this.redis.unique("shards"), BloomFilterSpec.of(3_000, 0.01));
		BloomFilter layers = registry.create(this.redis.unique("layers"),
				BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT));
		String layer = "rk:bloom:{" + layers.name() + "}:layer:";
		Map<BloomFilter, List<String>> lost = new LinkedHashMap<>();
		lost.put(whole, List.of("rk:bloom:{" + whole.name() + "}"));
		lost.put(shards, List.of("rk:bloom:{" + shards.name() + ":1}"));
		lost.put(layers, List.of(layer + "0", layer + "2", "rk:bloom:{" + layers.name() + "}"));
		lost.forEach((filter, keys) -> {
			for (String key : keys) {
				assertThat(filter.seed(items)).isTrue();
				assertThat(filter.info().shards()).as("%s: 1 shard, 15 shards, 3 layers", filter.name())
					.isEqualTo((filter == whole) ? 1 : (filter == shards) ? 15 : 3);
				assertThat(this.redis.masterFor(key).command("DEL", key)).as("%s", key).isEqualTo(1L);
				assertThat(items.stream().map(filter::check)).as("%s without %s", filter.name(), key)
					.doesNotContain(BloomAnswer.NEVER_SEEN)
					.contains(BloomAnswer.NOT_COMPLETE);
				assertThat(filter.isComplete()).isFalse();
				// An add that writes the lost key again does not make the rest of what it held trusted.
				filter.add("after-the-loss");
				assertThat(items.stream().map(filter::check)).as("%s without %s, then an add", filter.name(), key)
					.doesNotContain(BloomAnswer.NEVER_SEEN);
				assertThat(filter.isComplete()).isFalse();
			}
			// A seeding rebuilds it: trusted again, holding every item.
			assertThat(filter.seed(items)).isTrue();
			assertThat(filter.check("stranger")).isEqualTo(BloomAnswer.NEVER_SEEN);
			assertThat(items.stream().map(filter::check)).containsOnly(BloomAnswer.SEEN);
		});
	}

	@Test
	void otherSizingFailsClearly() {
		String name = this.redis.unique("sized");
		registry().create(name, BloomFilterSpec.of(100, 0.01)).add("a");
		BloomFilter other = registry().create(name, BloomFilterSpec.of(100, 0.001));
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> other.add("b"));
	}

	@Test
	void shardsSpreadOverTheMastersAndAnswerAsOne() {
		BloomFilter filter = registry().maxShardBits(2_000).create(this.redis.unique("sharded"),
				BloomFilterSpec.of(3_000, 0.01).withTtl(Duration.ofHours(1)));
		List<String> items = BloomFilterTests.items("s-", 0, 3_000);
		filter.addAll(items);
		assertThat(filter.mightContainAll(items)).doesNotContain(false);
		Map<RedisServerProcess, Long> perMaster = this.redis.keysPerMaster("rk:bloom:{" + filter.name() + "*");
		assertThat(perMaster.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(15);
		if (this.topology == Topology.CLUSTER) {
			assertThat(perMaster.values()).as("shards on every master").allSatisfy((count) -> assertThat(count).isPositive());
		}
	}

	@Test
	void shardsKnownToExistTakeThePlainPathAndAreRecreatedWithTheirSizingAfterADelete() {
		String name = this.redis.unique("known");
		BloomFilter filter = registry().maxShardBits(2_000).create(name, BloomFilterSpec.of(3_000, 0.01));
		filter.addAll(BloomFilterTests.items("k-", 0, 1_000));
		// Every shard known now: these go as one BITFIELD per shard, each to the master of its slot.
		assertThat(filter.addAll(BloomFilterTests.items("k-", 1_000, 2_000)).stream().filter((added) -> added).count())
			.isGreaterThan(1_900);
		registry().maxShardBits(2_000).create(name, BloomFilterSpec.of(3_000, 0.01)).delete();
		filter.addAll(BloomFilterTests.items("k-", 0, 3_000));
		assertThat(filter.mightContainAll(BloomFilterTests.items("k-", 0, 3_000))).doesNotContain(false);
		for (String key : ((RedisBloomFilter) filter).keys()) {
			assertThat(this.redis.masterFor(key).command("BITFIELD", key, "GET", "u32", "96")).as("%s has its header", key)
				.isEqualTo(List.of(BloomLayout.MAGIC));
		}
		assertThat(filter.info().approximateItems()).isBetween(2_900L, 3_100L);
		filter.delete();
	}

	@Test
	void aGrowingFiltersLayersShareOneSlot() {
		BloomFilter filter = registry().create(this.redis.unique("growing"),
				BloomFilterSpec.of(200, 0.01).withGrowth(BloomGrowth.DEFAULT));
		List<String> items = BloomFilterTests.items("g-", 0, 1_500);
		filter.addAll(items);
		assertThat(filter.mightContainAll(items)).doesNotContain(false);
		assertThat(filter.info().layers()).as("200 + 400 + 800 hold 1 400: a fourth layer").hasSize(4);
		Map<RedisServerProcess, Long> perMaster = this.redis.keysPerMaster("rk:bloom:{" + filter.name() + "}*");
		assertThat(perMaster.values()).as("the record and 4 layers, on one master").contains(5L);
		filter.delete();
		assertThat(this.redis.keysPerMaster("rk:bloom:{" + filter.name() + "}*").values()).containsOnly(0L);
	}

}

package io.rediskit.bloom;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Growing (scalable) Bloom filters against a real redis-server: the false-positive rate measured far past the
 * expected insertions, against a filter that does not grow; the layers' tightening; another instance's growth;
 * a full filter; sizing stored with the filter; TTL.
 */
class GrowingBloomFilterTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<String> events = new CopyOnWriteArrayList<>();

	BloomFilterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = registry(BloomMode.AUTO);
	}

	BloomFilterRegistry registry(BloomMode mode) {
		return new BloomFilterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()), KeyNaming.defaults(),
				mode, List.of(new BloomFilterListener() {

					@Override
					public void onItems(String filterName, BloomOperation operation, int items, int hits) {
						GrowingBloomFilterTests.this.events.add(filterName + " " + operation.tag() + " " + items + " " + hits);
					}

				}), (name) -> null);
	}

	@Test
	void keepsTheConfiguredRateTwentyTimesPastItsSizingWhereAFilterThatDoesNotGrowLosesIt() {
		BloomFilterSpec spec = BloomFilterSpec.of(1_000, 0.01);
		BloomFilter growing = this.registry.create("growing", spec.withGrowth(BloomGrowth.DEFAULT));
		BloomFilter fixed = this.registry.create("fixed", spec);
		List<String> members = items("member-", 20_000);
		for (int from = 0; from < members.size(); from += 5_000) {
			List<String> batch = members.subList(from, from + 5_000);
			assertThat(growing.addAll(batch)).as("batch from %d: every item new but false positives", from)
				.filteredOn((isNew) -> !isNew).hasSizeLessThan(50);
			fixed.addAll(batch);
		}
		assertThat(growing.mightContainAll(members)).as("no false negatives").containsOnly(true);
		List<String> strangers = items("stranger-", 50_000);
		double growingRate = rate(growing.mightContainAll(strangers));
		double fixedRate = rate(fixed.mightContainAll(strangers));
		assertThat(growingRate).as("measured rate of the growing filter").isLessThanOrEqualTo(0.011);
		assertThat(fixedRate).as("measured rate of the filter that does not grow").isGreaterThan(0.5);

		BloomFilterInfo info = growing.info();
		// Layers of 1 000, 2 000, 4 000, 8 000 and 16 000 items: 20 000 fill the first four and 5 000 of the fifth.
		assertThat(info.layers()).extracting(BloomLayerInfo::capacity).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 16_000L);
		assertThat(info.shards()).isEqualTo(5);
		// Items found in a layer by a false positive are not added: about 1% of them.
		assertThat(info.layers().get(4).items()).isBetween(4_600L, 5_000L);
		assertThat(info.approximateItems()).isBetween(19_600L, 20_000L);
		assertThat(info.overCapacity()).isFalse();
		assertThat(info.estimatedFalsePositiveRate()).isLessThan(0.01);
		// Each full layer's rate, estimated from its fill, is its sizing's: half the one before (the tightening).
		for (int i = 0; i < 4; i++) {
			BloomLayerInfo layer = info.layers().get(i);
			double estimated = Math.pow(layer.fillRatio(), layer.hashes());
			assertThat(layer.falsePositiveRate()).isEqualTo(0.01 * 0.5 * Math.pow(0.5, i), Offset.offset(1e-12));
			assertThat(estimated / layer.falsePositiveRate()).as("layer %d's estimated rate over its sizing", i)
				.isBetween(0.7, 1.3);
		}
		assertThat(this.events).contains("growing contains 20000 20000").anyMatch((event) -> event.startsWith("growing add 5000 "));
	}

	@Test
	void anotherInstanceSeesLayersItDidNotAdd() {
		BloomFilterSpec spec = BloomFilterSpec.of(100, 0.01).withGrowth(new BloomGrowth(2, 0.8, 6));
		BloomFilter first = this.registry.create("shared", spec);
		BloomFilter second = registry(BloomMode.BITMAP).create("shared", spec);
		assertThat(second.mightContain("a")).isFalse();
		List<String> members = items("m", 1_000);
		first.addAll(members);
		assertThat(second.mightContainAll(members)).containsOnly(true);
		assertThat(second.addAll(members)).as("known already, whichever layer").containsOnly(false);
		assertThat(second.add("one more")).isTrue();
		assertThat(second.info().layers()).hasSize(first.info().layers().size());
	}

	@Test
	void aFullFilterRefusesNewItemsAndStillAnswers() {
		BloomFilter small = this.registry.create("small",
				BloomFilterSpec.of(100, 0.01).withGrowth(new BloomGrowth(2, 0.5, 2)));
		List<String> members = items("m", 300);
		assertThat(small.addAll(members)).filteredOn((isNew) -> isNew).hasSizeGreaterThan(290);
		List<String> more = items("more-", 50);
		assertThatExceptionOfType(BloomFilterFullException.class).isThrownBy(() -> small.addAll(more))
			.withMessageContaining("Bloom filter 'small' is full: its 2 layers hold 300 items")
			.withMessageContaining("growth.maxLayers");
		assertThat(small.mightContainAll(members)).containsOnly(true);
		assertThat(small.info().layers()).hasSize(2);
	}

	@Test
	void sizingIsStoredWithTheFilter() {
		BloomFilterSpec spec = BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT);
		this.registry.create("sized", spec).add("x");
		BloomFilter other = registry(BloomMode.AUTO).create("sized", spec.withGrowth(new BloomGrowth(3, 0.5, 8)));
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> other.add("y"))
			.withMessageContaining("stored in Redis as a growing filter with sizing 'rkg1 n=100 p=0.01 f=2 r=0.5 max=8'");
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> other.mightContain("x"));
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(other::info);
		BloomFilter plain = registry(BloomMode.BITMAP).create("sized", BloomFilterSpec.of(100, 0.01));
		assertThatExceptionOfType(DataAccessException.class).as("a plain filter on a growing filter's record")
			.isThrownBy(() -> plain.add("x"))
			.havingRootCause()
			.withMessageContaining("WRONGTYPE");
		other.delete();
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of());
		assertThat(other.add("y")).isTrue();
	}

	@Test
	void aFilterSeededEmptyIsCompleteAndOneCreatedAnewDropsTheLayersItsLostRecordLeft() {
		BloomFilter filter = this.registry.create("empty", BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT));
		assertThat(filter.seed(List.of())).isTrue();
		assertThat(redis.server().command("EXISTS", "rk:bloom:{empty}:layer:0")).as("no item, no layer yet").isEqualTo(0L);
		assertThat(filter.isComplete()).isTrue();
		assertThat(filter.check("a")).isEqualTo(BloomAnswer.NEVER_SEEN);
		filter.addAll(items("e", 250));
		assertThat(filter.info().layers()).hasSize(2);
		// The record alone lost: the filter reads as absent, and is created anew by the next add, without the layers.
		assertThat(redis.server().command("DEL", "rk:bloom:{empty}")).isEqualTo(1L);
		assertThat(filter.check("e0")).isEqualTo(BloomAnswer.NOT_COMPLETE);
		filter.add("after");
		assertThat(redis.server().command("EXISTS", "rk:bloom:{empty}:layer:1")).isEqualTo(0L);
		assertThat(filter.info().layers()).hasSize(1);
		assertThat(filter.info().approximateItems()).isEqualTo(1);
		assertThat(filter.check("e0")).isEqualTo(BloomAnswer.NOT_COMPLETE);
	}

	@Test
	void aTtlCoversTheRecordAndEveryLayer() {
		BloomFilter brief = this.registry.create("brief",
				BloomFilterSpec.of(10, 0.01).withTtl(Duration.ofHours(1)).withGrowth(BloomGrowth.DEFAULT));
		brief.addAll(items("m", 100));
		List<?> keys = (List<?>) redis.server().command("KEYS", "rk:bloom:*");
		assertThat(keys).hasSize(1 + 4);
		for (Object key : keys) {
			assertThat((Long) redis.server().command("PTTL", key.toString())).as("%s", key).isBetween(1L, 3_600_000L);
		}
	}

	@Test
	void anAddSendsTheNextLayerOnlyWhenTheNewestMayFillAndGoesAgainWhenAnotherInstanceFilledIt() {
		BloomFilterSpec spec = BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT);
		GrowingBloomFilter first = (GrowingBloomFilter) this.registry.create("hint", spec);
		assertThat(first.layersToSend(10)).as("an empty filter has room for 10").isEqualTo(1);
		assertThat(first.layersToSend(100)).as("100 fill the first layer").isEqualTo(2);
		assertThat(first.addAll(items("m", 95))).filteredOn((isNew) -> isNew).hasSizeGreaterThan(90);
		long count = first.info().layers().get(0).items();
		assertThat(first.layersToSend(1)).as("%d of 100 and one more", count).isEqualTo(1);
		assertThat(first.layersToSend(10)).isEqualTo(2);
		// Another instance has seen nothing: it sends one layer, the script stops where the first layer is full and
		// says so, and the rest goes again with the second layer.
		GrowingBloomFilter second = (GrowingBloomFilter) registry(BloomMode.BITMAP).create("hint", spec);
		assertThat(second.layersToSend(10)).isEqualTo(1);
		long scripts = redis.commandCalls("evalsha");
		assertThat(second.addAll(items("n", 10))).containsOnly(true);
		assertThat(redis.commandCalls("evalsha") - scripts).as("one call with the first layer, one again with two").isEqualTo(2);
		assertThat(second.info().layers()).extracting(BloomLayerInfo::items).containsExactly(100L, count + 10 - 100);
		assertThat(second.layersToSend(1)).isEqualTo(2);
		assertThat(first.mightContainAll(items("n", 10))).as("layers the first instance has not seen").containsOnly(true);
	}

	@Test
	void anItemInTheNewestLayerIsNotAddedAgainAndAnAddOfKnownItemsWritesNothing() {
		BloomFilter filter = this.registry.create("dedupe", BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT));
		List<String> first = items("a", 150);
		filter.addAll(first);
		assertThat(filter.info().layers()).hasSize(2);
		String record = "rk:bloom:{dedupe}";
		List<?> before = (List<?>) redis.server().command("HMGET", record, "layers", "count", "items");
		long writes = redis.commandCalls("hset");
		// The newest layer has room: whether an item is in it is read from the BITFIELD that sets its bits.
		assertThat(filter.addAll(first.subList(100, 150))).as("in the newest layer").containsOnly(false);
		assertThat(filter.addAll(first.subList(0, 50))).as("in the first, full layer").containsOnly(false);
		assertThat(redis.server().command("HMGET", record, "layers", "count", "items")).isEqualTo(before);
		assertThat(redis.commandCalls("hset") - writes).as("nothing added: the record is not written").isZero();
		assertThat(filter.add("b")).isTrue();
		List<?> after = (List<?>) redis.server().command("HMGET", record, "layers", "count", "items");
		assertThat(after.get(1)).isEqualTo(Long.toString(Long.parseLong(before.get(1).toString()) + 1));
		assertThat(after.get(2)).isEqualTo(Long.toString(Long.parseLong(before.get(2).toString()) + 1));
	}

	@Test
	void growthIsValidated() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> new BloomGrowth(0, 0.5, 8))
			.withMessageContaining("growth.factor");
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> new BloomGrowth(2, 1, 8))
			.withMessageContaining("growth.tightening");
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> new BloomGrowth(2, 0.5, 33))
			.withMessageContaining("growth.maxLayers");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> BloomFilterSpec.of(100_000_000, 0.01).withGrowth(BloomGrowth.DEFAULT))
			.withMessageContaining("growth.maxLayers")
			.withMessageContaining("must be at most 2 for 100000000 expected insertions");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> registry(BloomMode.NATIVE).create("n", BloomFilterSpec.of(100, 0.01).withGrowth(BloomGrowth.DEFAULT)))
			.withMessageContaining("growth")
			.withMessageContaining("native");
	}

	private static double rate(List<Boolean> answers) {
		return (double) answers.stream().filter((found) -> found).count() / answers.size();
	}

	private static List<String> items(String prefix, int count) {
		List<String> items = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			items.add(prefix + i);
		}
		return items;
	}

}

package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RecordingCommands;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.SpecConflictException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The Bloom filter's behaviour against a real redis-server in bitmap mode: the false-positive rate at full
 * capacity, batches, sizing stored with the filter, TTL, shards, hostile items. Written against
 * {@link #registry()} only, so that a cluster or sentinel run can reuse it with another registry.
 */
class BloomFilterTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<String> events = new CopyOnWriteArrayList<>();

	BloomFilterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = registry();
	}

	BloomFilterRegistry registry() {
		return new BloomFilterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()), KeyNaming.defaults(),
				BloomMode.AUTO, List.of(new BloomFilterListener() {

					@Override
					public void onItems(String filterName, BloomOperation operation, int items, int hits) {
						BloomFilterTests.this.events.add(filterName + " " + operation.tag() + " " + items + " " + hits);
					}

				}), (name) -> name.equals("configured") ? BloomFilterSpec.of(1000, 0.01) : null);
	}

	@Test
	void sizingFollowsTheStandardFormulas() {
		BloomFilterSpec spec = BloomFilterSpec.of(1_000_000, 0.01);
		assertThat(spec.bits()).isEqualTo(9_585_059L);
		assertThat(spec.hashes()).isEqualTo(7);
		BloomFilterSpec billion = BloomFilterSpec.of(1_000_000_000L, 0.01);
		assertThat(billion.bits()).isGreaterThan(1L << 33);
		assertThat(BloomLayout.of(billion, BloomFilterSpec.MAX_SHARD_BITS).shards()).isEqualTo(3);
	}

	@Test
	void specsAreValidatedNamingTheComponent() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> BloomFilterSpec.of(0, 0.01))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("expectedInsertions"))
			.withMessage("expectedInsertions must be at least 1, was 0");
		for (double rate : new double[] { 0, 1, -0.1, Double.NaN, 1e-13 }) {
			assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> BloomFilterSpec.of(10, rate))
				.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("falsePositiveRate"));
		}
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> BloomFilterSpec.of(10, 0.01).withTtl(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("ttl"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> BloomFilterSpec.of(1_000_000_000L, 0.01).withTtl(Duration.ofDays(1)))
			.withMessageContaining("shards");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> BloomFilterSpec.of(BloomFilterSpec.MAX_EXPECTED_INSERTIONS, 0.000001))
			.withMessageContaining("2^40");
	}

	@Test
	void namesFollowTheRuleAndConfiguredFiltersAreFound() {
		for (String name : List.of("", "a:b", "a.b", "{x}", "x".repeat(65))) {
			assertThatIllegalArgumentException().as(name)
				.isThrownBy(() -> this.registry.create(name, BloomFilterSpec.of(10, 0.01)))
				.withMessageContaining("Bloom filter name");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("nope"))
			.withMessageContaining("redis-kit.bloom.filters.nope");
		BloomFilter configured = this.registry.get("configured");
		assertThat(configured.spec()).isEqualTo(BloomFilterSpec.of(1000, 0.01));
		assertThat(this.registry.get("configured")).isSameAs(configured);
		assertThat(this.registry.names()).containsExactly("configured");
	}

	@Test
	void atFullCapacityNoFalseNegativesAndTheFalsePositiveRateIsWithinTenPercentOfTheConfiguredOne() {
		int n = 100_000;
		double rate = 0.01;
		BloomFilter filter = this.registry.create("capacity", BloomFilterSpec.of(n, rate));
		for (int from = 0; from < n; from += 10_000) {
			filter.addAll(items("member-", from, 10_000));
		}
		int falseNegatives = 0;
		for (int from = 0; from < n; from += 10_000) {
			falseNegatives += (int) filter.mightContainAll(items("member-", from, 10_000)).stream()
				.filter((found) -> !found)
				.count();
		}
		assertThat(falseNegatives).isZero();
		int probes = 100_000;
		int falsePositives = 0;
		for (int from = 0; from < probes; from += 10_000) {
			falsePositives += (int) filter.mightContainAll(items("absent-", from, 10_000)).stream()
				.filter((found) -> found)
				.count();
		}
		double measured = (double) falsePositives / probes;
		assertThat(measured).as("measured false-positive rate").isLessThanOrEqualTo(1.1 * rate).isGreaterThan(0);
		BloomFilterInfo info = filter.info();
		assertThat(info.bits()).isEqualTo(958_506L);
		assertThat(info.hashes()).isEqualTo(7);
		assertThat(info.shards()).isEqualTo(1);
		assertThat(info.mode()).isEqualTo(BloomMode.BITMAP);
		assertThat((double) info.approximateItems()).isCloseTo(n, org.assertj.core.data.Percentage.withPercentage(2));
		assertThat(info.fillRatio()).isBetween(0.45, 0.55);
		assertThat(info.estimatedFalsePositiveRate()).isBetween(0.008, 0.012);
		// The shard was allocated at its full size when created: grown bit by bit, Redis would have kept up to
		// twice its length (up to 1 MB more above 1 MB) as room to grow. Left: the allocator's size classes,
		// at most a quarter apart.
		long shardBytes = (128 + 958_506 + 7) / 8;
		assertThat((Long) redis.server().command("MEMORY", "USAGE", "rk:bloom:{capacity}", "SAMPLES", "0"))
			.isLessThan(shardBytes * 5 / 4);
		System.out.printf("Bloom n=%d p=%.3f: measured false-positive rate %.5f over %d probes, info %s%n", n, rate,
				measured, probes, info);
	}

	@Test
	void addSaysWhetherAnItemWasNewAndBatchesAnswerInOrder() throws Exception {
		BloomFilter filter = this.registry.create("seen", BloomFilterSpec.of(1000, 0.001));
		assertThat(filter.mightContain("alice")).isFalse();
		assertThat(filter.add("alice")).isTrue();
		assertThat(filter.add("alice")).isFalse();
		assertThat(filter.mightContain("alice")).isTrue();
		assertThat(filter.addAll(List.of("bob", "carol", "bob", "alice"))).containsExactly(true, true, false, false);
		assertThat(filter.mightContainAll(List.of("dave", "bob", "carol", "erin"))).containsExactly(false, true, true,
				false);
		assertThat(filter.addAll(List.of())).isEmpty();
		assertThat(filter.addAsync("frank").toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(filter.mightContainAllAsync(List.of("frank", "gina")).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.containsExactly(true, false);
		assertThat(this.events).contains("seen add 4 2", "seen contains 4 2", "seen add 1 1");
		// One key: the bits and their sizing together.
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of("rk:bloom:{seen}"));
		assertThat(redis.server().command("TTL", "rk:bloom:{seen}")).isEqualTo(-1L);
	}

	@Test
	void aBatchLargerThanOneCallGoesAsSeveralCallsAndAnswersInOrder() {
		BloomFilter filter = this.registry.create("batches", BloomFilterSpec.of(100_000, 0.01));
		int items = 2 * RedisBloomFilter.ITEMS_PER_CALL + 500;
		filter.addAll(items("even-", 0, items).stream().filter((item) -> item.hashCode() % 2 == 0).toList());
		long scriptsBefore = redis.commandCalls("evalsha");
		long bitfieldsBefore = redis.commandCalls("bitfield");
		List<Boolean> added = filter.addAll(items("even-", 0, items));
		assertThat(redis.commandCalls("bitfield") - bitfieldsBefore).as("BITFIELD calls for %d items", items)
			.isEqualTo((items + RedisBloomFilter.ITEMS_PER_PLAIN_CALL - 1) / RedisBloomFilter.ITEMS_PER_PLAIN_CALL);
		assertThat(redis.commandCalls("evalsha") - scriptsBefore).as("the filter exists: no script").isZero();
		for (int i = 0; i < items; i++) {
			// Items added before are not new (a false positive may also say "not new", never the reverse).
			if (("even-" + i).hashCode() % 2 == 0) {
				assertThat(added.get(i)).as("item %d was added before", i).isFalse();
			}
		}
		assertThat(added.stream().filter((isNew) -> isNew).count()).as("new items").isGreaterThan(items / 3);
		assertThat(filter.mightContainAll(items("even-", 0, items))).hasSize(items).containsOnly(true);
	}

	@Test
	void onceAShardIsKnownAnAddIsOnePlainBitfieldThatStillWritesTheSizingOfADeletedFilter() {
		BloomFilter filter = this.registry.create("plain", BloomFilterSpec.of(1000, 0.01));
		String key = "rk:bloom:{plain}";
		assertThat(filter.add("a")).isTrue();
		long scripts = redis.commandCalls("evalsha");
		long bitfields = redis.commandCalls("bitfield");
		assertThat(filter.addAll(List.of("b", "c", "a"))).containsExactly(true, true, false);
		assertThat(redis.commandCalls("bitfield") - bitfields).as("one BITFIELD").isEqualTo(1);
		assertThat(redis.commandCalls("evalsha") - scripts).as("no script").isZero();
		// Deleted through another handle: this one does not know, and its BITFIELD creates the key anew.
		registry().create("plain", BloomFilterSpec.of(1000, 0.01)).delete();
		assertThat(filter.addAll(List.of("d", "e"))).containsExactly(true, true);
		assertThat(redis.commandCalls("evalsha") - scripts).as("the script wrote the sizing at once").isEqualTo(1);
		assertThat(redis.server().command("BITFIELD", key, "GET", "u32", "96")).isEqualTo(List.of(BloomLayout.MAGIC));
		long bits = filter.info().bits();
		assertThat(redis.server().command("STRLEN", key)).as("allocated at its full length")
			.isEqualTo(BloomLayout.HEADER_BITS / 8 + (bits + 7) / 8);
		assertThat(filter.mightContainAll(List.of("d", "e", "a"))).containsExactly(true, true, false);
		// Deleted and recreated with other sizing: the add fails as the script's would.
		registry().create("plain", BloomFilterSpec.of(1000, 0.01)).delete();
		registry().create("plain", BloomFilterSpec.of(2000, 0.01)).add("x");
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> filter.add("f"))
			.withMessageContaining("its spec now needs " + bits + " bits");
		Object other = redis.server().command("GET", key);
		assertThatExceptionOfType(BloomFilterSizingException.class).as("back to the script: nothing set")
			.isThrownBy(() -> filter.add("g"));
		assertThat(redis.server().command("GET", key)).isEqualTo(other);
	}

	@Test
	void aFilterWithATtlAlwaysAddsThroughTheScript() {
		RecordingCommands commands = new RecordingCommands(CommandExecutor.of(redis.connections()));
		BloomFilter filter = new BloomFilterRegistry(redis.scripts(), commands, KeyNaming.defaults(), BloomMode.BITMAP,
				List.of(), (name) -> null)
			.create("ttl", BloomFilterSpec.of(1000, 0.01).withTtl(Duration.ofHours(1)));
		filter.add("a");
		long scripts = redis.commandCalls("evalsha");
		filter.add("b");
		redis.server().command("DEL", "rk:bloom:{ttl}");
		filter.add("c");
		assertThat(redis.commandCalls("evalsha") - scripts).isEqualTo(2);
		assertThat(commands.sent()).as("no plain BITFIELD").doesNotContain("BITFIELD");
		assertThat((Long) redis.server().command("PTTL", "rk:bloom:{ttl}")).isPositive();
	}

	@Test
	void stringsAreTheirUtf8BytesAndHostileItemsAreData() {
		BloomFilter filter = this.registry.create("hostile", BloomFilterSpec.of(1000, 0.001));
		String unicode = "Zoë 🚀 日本";
		assertThat(filter.add(unicode)).isTrue();
		assertThat(filter.mightContain(unicode.getBytes(StandardCharsets.UTF_8))).isTrue();
		assertThat(filter.add("")).isTrue();
		assertThat(filter.mightContain(new byte[0])).isTrue();
		String huge = "x".repeat(1_000_000);
		assertThat(filter.add(huge)).isTrue();
		assertThat(filter.mightContain(huge)).isTrue();
		assertThat(filter.mightContain(huge + "y")).isFalse();
		for (String item : List.of("{x}", "}{", "*", "\u0000", "rk:bloom:{hostile}")) {
			assertThat(filter.add(item)).as(item).isTrue();
		}
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of("rk:bloom:{hostile}"));
		assertThatExceptionOfType(NullPointerException.class)
			.isThrownBy(() -> filter.addAll(java.util.Arrays.asList("a", null)));
	}

	@Test
	void aFilterReopenedWithOtherSizingFailsClearlyAndChangesNothing() {
		BloomFilter small = this.registry.create("resized", BloomFilterSpec.of(1000, 0.01));
		small.addAll(List.of("a", "b", "c"));
		Object before = redis.server().command("GET", "rk:bloom:{resized}");
		// Another application (or this one after a restart) with other sizing: one registry refuses at once.
		assertThatExceptionOfType(SpecConflictException.class)
			.isThrownBy(() -> this.registry.create("resized", BloomFilterSpec.of(2000, 0.01)));
		BloomFilter larger = registry().create("resized", BloomFilterSpec.of(2000, 0.01));
		assertThat(larger).isNotSameAs(small);
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> larger.add("d"))
			.withMessageContaining("Bloom filter 'resized' is stored in Redis with 9586 bits, 7 hashes, 1 shard(s)")
			.withMessageContaining("its spec now needs 19171 bits, 7 hashes, 1 shard(s)");
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> larger.mightContain("a"));
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(larger::info);
		assertThat(redis.server().command("GET", "rk:bloom:{resized}")).isEqualTo(before);
		larger.delete();
		assertThat(larger.add("d")).isTrue();
		assertThat(larger.mightContain("a")).isFalse();
	}

	@Test
	void aFilterWithATtlExpiresWholeAndIsRecreatedEmpty() {
		BloomFilter filter = this.registry.create("daily", BloomFilterSpec.of(1000, 0.01).withTtl(Duration.ofHours(1)));
		filter.add("a");
		long ttl = (Long) redis.server().command("PTTL", "rk:bloom:{daily}");
		assertThat(ttl).isBetween(1L, 3_600_000L);
		filter.add("b");
		assertThat((Long) redis.server().command("PTTL", "rk:bloom:{daily}")).as("the TTL counts from creation")
			.isLessThanOrEqualTo(ttl);
		// Expiry removes the one key: bits and sizing together. PEXPIRE 1 stands in for an hour passing.
		redis.server().command("PEXPIRE", "rk:bloom:{daily}", "1");
		waitUntilGone("rk:bloom:{daily}");
		assertThat(filter.mightContain("a")).isFalse();
		assertThat(filter.add("a")).isTrue();
		assertThat((Long) redis.server().command("PTTL", "rk:bloom:{daily}")).isPositive();
	}

	@Test
	void largeFiltersAreShardedByItemHashWithEveryProbeOfAnItemInOneShard() {
		BloomFilterRegistry sharded = registry().maxShardBits(10_000);
		int n = 10_000;
		BloomFilter filter = sharded.create("big", BloomFilterSpec.of(n, 0.01));
		assertThat(((RedisBloomFilter) filter).keys()).hasSize(10)
			.startsWith("rk:bloom:{big}", "rk:bloom:{big:1}")
			.endsWith("rk:bloom:{big:9}");
		List<Boolean> added = filter.addAll(items("member-", 0, n));
		assertThat(added.stream().filter((isNew) -> isNew).count()).isGreaterThan(n * 98L / 100);
		assertThat(filter.mightContainAll(items("member-", 0, n))).doesNotContain(false);
		long falsePositives = filter.mightContainAll(items("absent-", 0, 20_000)).stream().filter((found) -> found).count();
		assertThat(falsePositives / 20_000.0).isLessThanOrEqualTo(0.015);
		// Each shard received its part, under its own header.
		for (String key : ((RedisBloomFilter) filter).keys()) {
			assertThat((Long) redis.server().command("BITCOUNT", key, "16", "-1")).as(key).isGreaterThan(2_000L);
		}
		BloomFilterInfo info = filter.info();
		assertThat(info.shards()).isEqualTo(10);
		assertThat((double) info.approximateItems()).isCloseTo(n, org.assertj.core.data.Percentage.withPercentage(5));
		// Reopened unsharded (other sizing): shard 0, which every sizing has, tells.
		BloomFilter unsharded = registry().create("big", BloomFilterSpec.of(n, 0.01));
		assertThatExceptionOfType(BloomFilterSizingException.class).isThrownBy(() -> unsharded.mightContain("x"))
			.withMessageContaining("10 shard(s)");
		BloomFilter shardedAgain = registry().maxShardBits(10_000).create("big", BloomFilterSpec.of(n, 0.01));
		assertThat(shardedAgain.mightContain("member-17")).isTrue();
	}

	@Test
	void aFilterPastItsExpectedInsertionsSaysSo() {
		BloomFilter filter = this.registry.create("full", BloomFilterSpec.of(100, 0.01));
		filter.addAll(items("m-", 0, 300));
		BloomFilterInfo info = filter.info();
		assertThat(info.overCapacity()).isTrue();
		assertThat(info.estimatedFalsePositiveRate()).isGreaterThan(0.1);
	}

	@Test
	void theServerHereHasNoNativeFiltersSoAutoChoosesBitmaps() {
		assertThat(this.registry.nativeFiltersAvailable()).isFalse();
		BloomFilter filter = this.registry.create("auto", BloomFilterSpec.of(100, 0.01));
		filter.add("a");
		assertThat(filter.info().mode()).isEqualTo(BloomMode.BITMAP);
		assertThat(redis.server().command("TYPE", "rk:bloom:{auto}")).isEqualTo("string");
		BloomFilterRegistry nativeOnly = new BloomFilterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), BloomMode.NATIVE, List.of(), (name) -> null);
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> nativeOnly.create("n", BloomFilterSpec.of(100, 0.01)).add("a"))
			.withMessageContaining("offers no BF.* commands");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> nativeOnly.create("n", BloomFilterSpec.of(100, 0.01).withTtl(Duration.ofMinutes(1))))
			.withMessageContaining("ttl is not supported by native");
	}

	static List<String> items(String prefix, int from, int count) {
		List<String> items = new ArrayList<>(count);
		IntStream.range(from, from + count).forEach((i) -> items.add(prefix + i));
		return items;
	}

	private static void waitUntilGone(String key) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while ((Long) redis.server().command("EXISTS", key) == 1) {
			assertThat(System.nanoTime()).as("key expired within 10 s").isLessThan(deadline);
			Thread.onSpinWait();
		}
	}

	@Test
	void deleteAsyncRemovesEveryShard() throws Exception {
		BloomFilter filter = this.registry.create("async-delete", BloomFilterSpec.of(1000, 0.01));
		assertThat(filter.addAsync("a").toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(redis.server().dbSize()).isPositive();
		filter.deleteAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(redis.server().dbSize()).isZero();
		assertThat(filter.mightContainAsync("a").toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
	}

}

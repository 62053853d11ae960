package io.rediskit.counter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.SlotHash;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RecordingCommands;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.testsupport.RedisServerBinary;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Unique counters against a real redis-server: accuracy, buckets on pinned dates and zones, ranges, expiry. */
class UniqueCounterTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	UniqueCounterRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new UniqueCounterRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), (name) -> null);
	}

	@ParameterizedTest
	@ValueSource(ints = { 1_000, 10_000, 100_000, 1_000_000 })
	void countsDistinctMembersWithinThreeStandardErrors(int distinct) {
		UniqueCounter counter = this.registry.create("uv" + distinct, UniqueCounterSpec.daily(ZoneOffset.UTC));
		int batch = 10_000;
		for (int from = 0; from < distinct; from += batch) {
			List<String> members = new ArrayList<>(batch);
			for (int i = from; i < Math.min(distinct, from + batch); i++) {
				members.add("visitor-" + i);
			}
			counter.addAll(members);
			// Every member again: duplicates change nothing.
			counter.addAll(members.subList(0, members.size() / 2));
		}
		long counted = counter.count();
		double error = Math.abs(counted - distinct) / (double) distinct;
		System.out.printf("HyperLogLog: %d distinct, counted %d, error %.3f%%%n", distinct, counted, error * 100);
		assertThat(error).isLessThanOrEqualTo(0.0243);
	}

	@Test
	void addSaysWhetherTheEstimateChangedAndEmptyAddsSendNothing() throws Exception {
		UniqueCounter counter = this.registry.create("page", UniqueCounterSpec.daily(PARIS));
		assertThat(counter.add("alice", "bob")).isTrue();
		assertThat(counter.add("alice")).isFalse();
		assertThat(counter.add()).isFalse();
		assertThat(counter.count()).isEqualTo(2);
		assertThat(counter.addAllAsync(List.of("carol")).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(counter.countAsync().toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(3);
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of("rk:counter:{page}"));
	}

	@Test
	void dailyBucketsFollowTheZonesCalendarAcrossMonthEndsAndLeapDays() {
		UniqueCounter counter = this.registry.create("daily", UniqueCounterSpec.daily(PARIS));
		// 23:30 UTC on 28 Feb 2024 is 00:30 on the leap day in Paris.
		counter.add("a", Instant.parse("2024-02-28T23:30:00Z"));
		counter.add("b", Instant.parse("2024-02-29T22:59:59Z"));
		// 23:00 UTC on 29 Feb is midnight, 1 March, in Paris: a new month.
		counter.add("c", Instant.parse("2024-02-29T23:00:00Z"));
		counter.add("a", Instant.parse("2024-03-01T12:00:00Z"));
		assertThat(keys()).containsExactlyInAnyOrder("rk:counter:{daily}:d:2024-02-29", "rk:counter:{daily}:d:2024-03-01");
		assertThat(counter.count(LocalDate.of(2024, 2, 29), LocalDate.of(2024, 2, 29))).isEqualTo(2);
		assertThat(counter.count(LocalDate.of(2024, 3, 1), LocalDate.of(2024, 3, 1))).isEqualTo(2);
		assertThat(counter.count(LocalDate.of(2024, 2, 1), LocalDate.of(2024, 3, 31))).isEqualTo(3);
		// The same instants bucketed in UTC fall on other days.
		UniqueCounter utc = this.registry.create("utc", UniqueCounterSpec.daily(ZoneOffset.UTC));
		utc.add("a", Instant.parse("2024-02-28T23:30:00Z"));
		assertThat(utc.count(LocalDate.of(2024, 2, 28), LocalDate.of(2024, 2, 28))).isEqualTo(1);
		assertThat(utc.count(LocalDate.of(2024, 2, 29), LocalDate.of(2024, 2, 29))).isZero();
		assertThat(utc.count(LocalDate.of(2023, 2, 28), LocalDate.of(2023, 3, 1))).as("2023 has no 29 February")
			.isZero();
	}

	@Test
	void hourlyBucketsKeepTheRepeatedHourOfADstChangeApart() {
		UniqueCounter counter = this.registry.create("hourly", UniqueCounterSpec.hourly(ZoneId.of("America/New_York")));
		// 3 November 2024: 01:00-02:00 happens twice in New York, at -04:00 then at -05:00.
		counter.add("first", Instant.parse("2024-11-03T05:30:00Z"));
		counter.add("second", Instant.parse("2024-11-03T06:30:00Z"));
		assertThat(keys()).containsExactlyInAnyOrder("rk:counter:{hourly}:h:2024-11-03T01:00-04:00",
				"rk:counter:{hourly}:h:2024-11-03T01:00-05:00");
		assertThat(counter.count(Instant.parse("2024-11-03T05:00:00Z"), Instant.parse("2024-11-03T06:59:00Z")))
			.isEqualTo(2);
	}

	@Test
	void rangesAreMergedIntoAShortLivedCachedKeyInTheCountersHashTag() {
		UniqueCounter counter = this.registry.create("cached",
				UniqueCounterSpec.daily(ZoneOffset.UTC).withRangeCacheTtl(Duration.ofMinutes(10)));
		counter.add("a", Instant.parse("2025-01-01T10:00:00Z"));
		counter.add("b", Instant.parse("2025-01-02T10:00:00Z"));
		LocalDate first = LocalDate.of(2025, 1, 1);
		LocalDate second = LocalDate.of(2025, 1, 2);
		assertThat(counter.count(first, second)).isEqualTo(2);
		String cache = "rk:counter:{cached}:range:d:2025-01-01..d:2025-01-02";
		assertThat(keys()).contains(cache);
		assertThat((Long) redis.server().command("PTTL", cache)).isBetween(1L, 600_000L);
		counter.add("c", Instant.parse("2025-01-02T11:00:00Z"));
		assertThat(counter.count(first, second)).as("served from the cache until it expires").isEqualTo(2);
		redis.server().command("DEL", cache);
		assertThat(counter.count(first, second)).isEqualTo(3);
		assertThatIllegalArgumentException().isThrownBy(() -> counter.count(second, first));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> counter.count(LocalDate.of(2000, 1, 1), LocalDate.of(2025, 1, 1)))
			.withMessageContaining("at most 4000 buckets");
	}

	@Test
	void bucketsExpireTheirRetentionAfterTheirEnd() {
		RedisServerBinary.assumeAtLeast(7, 0, "PEXPIRETIME");
		UniqueCounter counter = this.registry.create("kept",
				UniqueCounterSpec.daily(PARIS).withRetention(Duration.ofDays(400)));
		Instant now = Instant.now();
		counter.add("a", now);
		LocalDate today = LocalDate.ofInstant(now, PARIS);
		long expected = today.plusDays(1).atStartOfDay(PARIS).toInstant().plus(Duration.ofDays(400)).toEpochMilli();
		assertThat(redis.server().command("PEXPIRETIME", "rk:counter:{kept}:d:" + today)).isEqualTo(expected);
	}

	@Test
	void anAddIntoABucketPastTheRetentionIsRefusedAndWritesNothing() {
		UniqueCounter counter = this.registry.create("kept",
				UniqueCounterSpec.daily(PARIS).withRetention(Duration.ofDays(400)));
		Instant longAgo = Instant.now().minus(Duration.ofDays(500));
		LocalDate day = LocalDate.ofInstant(longAgo, PARIS);
		assertThatExceptionOfType(RetentionPassedException.class).isThrownBy(() -> counter.add("a", longAgo))
			.withMessageContaining("Unique counter 'kept'")
			.withMessageContaining("bucket d:" + day)
			.withMessageContaining("retention of 400d")
			.withMessageContaining("nothing was written");
		assertThat(counter.addAllAsync(List.of("a", "b"), longAgo))
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(RetentionPassedException.class);
		assertThat(counter.count(day, day)).isZero();
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of());
		Instant recent = Instant.now().minus(Duration.ofDays(300));
		assertThat(counter.add("a", recent)).isTrue();
		assertThat(counter.count(recent, recent)).isEqualTo(1);
	}

	@Test
	void theBucketScriptRefusesABucketWhoseExpiryHasComeOnTheServersClock() {
		byte[] key = "rk:counter:{pinned}:d:2024-02-29".getBytes(StandardCharsets.UTF_8);
		assertThat(runAdd(key, 1_000_000, 1_000_000)).as("expiring now").isEqualTo(-1);
		assertThat(redis.server().command("EXISTS", "rk:counter:{pinned}:d:2024-02-29")).isEqualTo(0L);
		long future = System.currentTimeMillis() + 3_600_000;
		assertThat(runAdd(key, future, future - 1)).as("a millisecond to go").isEqualTo(1);
		assertThat(redis.server().command("PEXPIRETIME", "rk:counter:{pinned}:d:2024-02-29")).isEqualTo(future);
		assertThat(runAdd(key, 0, Long.MAX_VALUE / 2)).as("no retention: never refused").isEqualTo(0);
	}

	private long runAdd(byte[] key, long expiresAt, long now) {
		Long reply = redis.scripts().execute(UniqueCounterScripts.ADD_TO_BUCKET, ReturnType.INTEGER, 1,
				UniqueCounterScripts.addToBucket(key, expiresAt, now, List.of("a")));
		return (reply != null) ? reply : Long.MIN_VALUE;
	}

	@Test
	void specsAndNamesAreValidated() {
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> UniqueCounterSpec.daily(PARIS).withRetention(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("retention"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> UniqueCounterSpec.daily(PARIS).withRangeCacheTtl(Duration.ofHours(2)))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("rangeCacheTtl"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.create("a:b", UniqueCounterSpec.daily(PARIS)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.get("unknown"))
			.withMessageContaining("redis-kit.counter.counters.unknown");
	}

	@SuppressWarnings("unchecked")
	private static List<String> keys() {
		return (List<String>) redis.server().command("KEYS", "*");
	}

	@Test
	void countAsyncOverDaysMatchesTheBlockingCount() throws Exception {
		UniqueCounter counter = this.registry.create("days-async", UniqueCounterSpec.daily(PARIS));
		LocalDate day = LocalDate.of(2024, 3, 10);
		counter.addAll(List.of("alice", "bob"), day.atStartOfDay(PARIS).toInstant().plusSeconds(60));
		counter.addAll(List.of("bob", "carol"), day.plusDays(1).atStartOfDay(PARIS).toInstant().plusSeconds(60));
		assertThat(counter.countAsync(day, day.plusDays(1)).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.isEqualTo(3L)
			.isEqualTo(counter.count(day, day.plusDays(1)));
		assertThat(counter.countAsync(day, day).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(2L);
	}

	@Test
	void offClusterAUnionOfCountersInDifferentSlotsIsOnePfcount() {
		UniqueCounterSpec spec = UniqueCounterSpec.daily(ZoneOffset.UTC);
		this.registry.create("home", spec).add("a", "b");
		this.registry.create("pricing", spec).add("b", "c");
		this.registry.create("empty", spec);
		assertThat(SlotHash.getSlot(KeyNaming.defaults().key("counter", "home")))
			.isNotEqualTo(SlotHash.getSlot(KeyNaming.defaults().key("counter", "pricing")));
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(this.registry.countUnion("home", "pricing", "empty")).isEqualTo(3);
		assertThat(commandStats()).as("one PFCOUNT of every key, no copy").contains("cmdstat_pfcount:calls=1,")
			.doesNotContain("cmdstat_get:", "cmdstat_set:", "cmdstat_evalsha:", "cmdstat_eval:");
	}

	/** The cluster's path (copies in one slot), taken here on one server by an executor that says it is a cluster. */
	@Test
	void unionsCountMembersOfAnyCounterWithoutKeepingACopy() {
		CommandExecutor commands = CommandExecutor.of(redis.connections());
		assertThat(commands.isCluster()).isFalse();
		this.registry = new UniqueCounterRegistry(redis.scripts(), new RecordingCommands(commands, true),
				KeyNaming.defaults(), (name) -> null);
		UniqueCounterSpec spec = UniqueCounterSpec.daily(ZoneOffset.UTC);
		UniqueCounter home = this.registry.create("home", spec);
		UniqueCounter pricing = this.registry.create("pricing", spec);
		UniqueCounter empty = this.registry.create("empty", spec);
		List<String> both = new ArrayList<>();
		for (int i = 0; i < 30_000; i++) {
			both.add("v" + i);
		}
		// 0..19 999 saw home, 10 000..29 999 saw pricing: 30 000 distinct, 10 000 on both.
		home.addAll(both.subList(0, 20_000));
		pricing.addAll(both.subList(10_000, 30_000));
		assertThat(SlotHash.getSlot(KeyNaming.defaults().key("counter", "home")))
			.as("different tags: the copy path")
			.isNotEqualTo(SlotHash.getSlot(KeyNaming.defaults().key("counter", "pricing")));
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(this.registry.countUnion("home", "pricing")).isCloseTo(30_000L, Percentage.withPercentage(2.43));
		assertThat(commandStats()).as("a GET of each counter, then the union script")
			.contains("cmdstat_get:calls=2,", "cmdstat_set:calls=2,", "cmdstat_del:calls=1,");
		assertThat(this.registry.countUnionAsync("pricing", "empty", "home")).succeedsWithin(Duration.ofSeconds(5))
			.satisfies((count) -> assertThat(count).isCloseTo(30_000L, Percentage.withPercentage(2.43)));
		assertThat(this.registry.countUnion("home")).isEqualTo(home.count());
		assertThat(this.registry.countUnion("empty")).isZero();
		this.registry.create("empty2", spec);
		assertThat(this.registry.countUnion("empty", "empty2")).as("no counter has a key").isZero();
		assertThat(redis.server().command("KEYS", "*")).as("no copy left, the counters unchanged")
			.asInstanceOf(InstanceOfAssertFactories.LIST)
			.containsExactlyInAnyOrder("rk:counter:{home}", "rk:counter:{pricing}");
		redis.server().command("SET", "rk:counter:{empty}", "not a HyperLogLog");
		assertThatExceptionOfType(DataAccessException.class).as("a command error, thrown as it is")
			.isThrownBy(() -> this.registry.countUnion("home", "empty"));
		assertThat(redis.server().command("KEYS", "rk:counter:{union:*")).asInstanceOf(InstanceOfAssertFactories.LIST)
			.as("the failed script's copies, which expire")
			.hasSize(2)
			.allSatisfy((key) -> assertThat((Long) redis.server().command("PTTL", key.toString())).isBetween(1L, 60_000L));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.countUnion("home", "nope"))
			.withMessageContaining("nope");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.countUnion())
			.withMessage("names must name at least one counter");
	}

	@Test
	void countersWhoseKeysShareASlotAreCountedTogetherByOnePfcount() {
		UniqueCounterSpec spec = UniqueCounterSpec.daily(ZoneOffset.UTC);
		int slot = SlotHash.getSlot("a");
		String twin = null;
		for (int i = 0; twin == null; i++) {
			if (SlotHash.getSlot("b" + i) == slot) {
				twin = "b" + i;
			}
		}
		UniqueCounter a = this.registry.create("a", spec);
		UniqueCounter b = this.registry.create(twin, spec);
		a.add("x", "y");
		b.add("y", "z");
		redis.server().command("CONFIG", "RESETSTAT");
		assertThat(this.registry.countUnion("a", twin)).isEqualTo(3);
		assertThat(commandStats()).as("one PFCOUNT, no copy").contains("cmdstat_pfcount:calls=1,")
			.doesNotContain("cmdstat_get:", "cmdstat_set:", "cmdstat_evalsha:");
	}

	private static String commandStats() {
		Object info = redis.server().command("INFO", "commandstats");
		return (info instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(info);
	}

}

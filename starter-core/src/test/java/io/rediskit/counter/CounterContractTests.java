package io.rediskit.counter;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendar;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivity;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.bitmap.Overflow;
import io.rediskit.bitmap.PackedCounterSpec;
import io.rediskit.bitmap.Retention;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RecordingCommands;
import io.rediskit.support.TopologyScripts;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What unique counters and bitmaps promise on every topology (run once per {@link Topology}):
 * range merges, month-spanning streaks and daily activity combined over days run on one slot (no CROSSSLOT), for
 * hostile names too.
 */
class CounterContractTests extends TopologyContract {

	@Test
	void rangesMergeBucketsOfOneCounterInOneSlot() {
		UniqueCounterRegistry registry = new UniqueCounterRegistry(TopologyScripts.of(this.redis),
				CommandExecutor.of(this.redis.connections()), KeyNaming.defaults(), (name) -> null);
		UniqueCounter counter = registry.create(this.redis.unique("uv"), UniqueCounterSpec.daily(ZoneOffset.UTC));
		for (int day = 1; day <= 31; day++) {
			counter.addAll(List.of("v" + day, "v" + (day + 1)), Instant.parse("2024-01-01T12:00:00Z").plusSeconds(86_400L * (day - 1)));
		}
		assertThat(counter.count(LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 31))).isEqualTo(32);
		counter.add("x", "y");
		assertThat(counter.count()).isEqualTo(2);
	}

	@Test
	void unionsOfCountersInDifferentSlotsAreCountedWithoutCrossSlot() {
		CommandExecutor commands = CommandExecutor.of(this.redis.connections());
		boolean cluster = this.topology == Topology.CLUSTER;
		assertThat(commands.isCluster()).as("told by the executor").isEqualTo(cluster);
		RecordingCommands recorded = new RecordingCommands(commands);
		UniqueCounterRegistry registry = new UniqueCounterRegistry(TopologyScripts.of(this.redis), recorded,
				KeyNaming.defaults(), (name) -> null);
		UniqueCounterSpec spec = UniqueCounterSpec.daily(ZoneOffset.UTC);
		List<String> names = List.of(this.redis.unique("home"), this.redis.unique("pricing"), this.redis.unique("docs"));
		for (int i = 0; i < names.size(); i++) {
			UniqueCounter counter = registry.create(names.get(i), spec);
			counter.add("shared", "only-" + i);
		}
		recorded.clear();
		assertThat(registry.countUnion(names.toArray(String[]::new))).isEqualTo(4);
		assertThat(recorded.sent()).as("a copy of each counter on a cluster, else one PFCOUNT of them all")
			.isEqualTo(cluster ? List.of("GET", "GET", "GET") : List.of("PFCOUNT"));
		assertThat(this.redis.keysPerMaster(KeyNaming.defaults().areaKey("counter", "{union:*")).values())
			.as("no copy left on any master")
			.containsOnly(0L);
	}

	@Test
	void streaksAndPackedCountersWorkForHostileUsers() {
		BitmapRegistry registry = new BitmapRegistry(TopologyScripts.of(this.redis), CommandExecutor.of(this.redis.connections()),
				KeyNaming.defaults(), (name) -> null);
		CheckInCalendar calendar = registry.createCalendar(this.redis.unique("login"), CheckInCalendarSpec.of(ZoneOffset.UTC));
		for (String user : List.of("{u}", "a:b", "%7B", "é".repeat(300))) {
			for (LocalDate day = LocalDate.of(2024, 2, 27); !day.isAfter(LocalDate.of(2024, 3, 2)); day = day.plusDays(1)) {
				calendar.checkIn(user, day);
			}
			assertThat(calendar.streak(user, LocalDate.of(2024, 3, 2))).as(user).isEqualTo(5);
		}
		var counters = registry.createPackedCounters(this.redis.unique("hits"), PackedCounterSpec.unsigned(16, Overflow.SAT));
		assertThat(counters.incrementBy("{u}", 9, 70_000)).hasValue(65_535);
	}

	@Test
	void dailyActivityCombinesDaysInOneSlot() {
		BitmapRegistry registry = new BitmapRegistry(TopologyScripts.of(this.redis), CommandExecutor.of(this.redis.connections()),
				KeyNaming.defaults(), (name) -> null);
		DailyActivity activity = registry.createActivity(this.redis.unique("dau"), DailyActivitySpec.of(ZoneOffset.UTC));
		LocalDate first = LocalDate.of(2024, 2, 28);
		for (long user = 0; user < 30; user++) {
			for (int day = 0; day < 3; day++) {
				if ((user + day) % 3 != 0) {
					activity.markActive(user, first.plusDays(day));
				}
			}
		}
		assertThat(activity.count(first)).isEqualTo(20);
		assertThat(activity.countActiveEveryDay(first, first.plusDays(2))).isZero();
		assertThat(activity.countActiveEveryDay(first, first.plusDays(1))).isEqualTo(10);
		assertThat(activity.countActiveAnyDay(first, first.plusDays(2))).isEqualTo(30);
		assertThat(activity.retention(first, 2)).isEqualTo(new Retention(20, 10));
		assertThat(this.redis.exists(KeyNaming.defaults().key("activity", activity.name(), "scratch"))).isFalse();
	}

}

package io.rediskit.bitmap;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.RetentionPassedException;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Daily activity bitmaps against a real redis-server: random marks checked against a naive model (a set of users
 * per day), bounds, retention refusals, and that no scratch key outlives a call.
 */
class DailyActivityTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	static final LocalDate START = LocalDate.of(2024, 2, 20);

	final ObservationRecorder recorder = new ObservationRecorder();

	BitmapRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new BitmapRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), (name) -> null,
				(name) -> name.equals("configured") ? DailyActivitySpec.of(PARIS) : null);
		this.registry.setObservations(this.recorder.observations());
	}

	@Test
	void answersAsANaiveModelDoesOverRandomMarks() throws Exception {
		DailyActivity activity = this.registry.createActivity("dau", DailyActivitySpec.of(PARIS).withMaxUserId(5_000));
		Random random = new Random(22);
		int days = 14;
		Map<LocalDate, BitSet> model = new HashMap<>();
		for (int i = 0; i < 4_000; i++) {
			// Skewed so that some users come back often and every-day sets are not empty.
			long user = (random.nextInt(4) == 0) ? random.nextInt(40) : random.nextInt(5_001);
			LocalDate day = START.plusDays(random.nextInt(days));
			boolean wasNew = !model.computeIfAbsent(day, (d) -> new BitSet()).get((int) user);
			model.get(day).set((int) user);
			boolean reported = (i % 2 == 0) ? activity.markActive(user, day)
					: activity.markActiveAsync(user, day).toCompletableFuture().get();
			assertThat(reported).as("mark %d of user %d on %s", i, user, day).isEqualTo(wasNew);
		}
		for (int i = 0; i < 200; i++) {
			LocalDate day = START.plusDays(random.nextInt(days + 2) - 1);
			long user = random.nextInt(5_001);
			assertThat(activity.isActive(user, day)).isEqualTo(bits(model, day).get((int) user));
		}
		for (int d = -1; d <= days; d++) {
			LocalDate day = START.plusDays(d);
			assertThat(activity.count(day)).as("count of %s", day).isEqualTo(bits(model, day).cardinality());
			assertThat(activity.countAsync(day).toCompletableFuture().get()).isEqualTo(bits(model, day).cardinality());
		}
		for (int i = 0; i < 60; i++) {
			LocalDate from = START.plusDays(random.nextInt(days + 2) - 1);
			LocalDate to = from.plusDays(random.nextInt(4));
			BitSet every = null;
			BitSet any = new BitSet();
			for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
				if (every == null) {
					every = (BitSet) bits(model, day).clone();
				}
				else {
					every.and(bits(model, day));
				}
				any.or(bits(model, day));
			}
			assertThat(activity.countActiveEveryDay(from, to)).as("every day %s..%s", from, to)
				.isEqualTo(every.cardinality());
			assertThat(activity.countActiveAnyDayAsync(from, to).toCompletableFuture().get()).as("any day %s..%s", from, to)
				.isEqualTo(any.cardinality());
			int after = 1 + random.nextInt(5);
			BitSet retained = (BitSet) bits(model, from).clone();
			retained.and(bits(model, from.plusDays(after)));
			Retention retention = (i % 2 == 0) ? activity.retention(from, after)
					: activity.retentionAsync(from, after).toCompletableFuture().get();
			assertThat(retention).as("retention of %s after %d", from, after)
				.isEqualTo(new Retention(bits(model, from).cardinality(), retained.cardinality()));
		}
		// One key per day marked, none left by the questions.
		assertThat(redis.server().command("KEYS", "rk:activity:*")).asInstanceOf(InstanceOfAssertFactories.LIST)
			.hasSize(model.size())
			.allSatisfy((key) -> assertThat(key.toString()).matches("rk:activity:\\{dau\\}:2024-0[23]-\\d\\d"));
		assertThat(this.recorder.calls(RedisKitObservation.BITMAP_OPERATION, "success")).contains("dau mark-active",
				"dau is-active", "dau count", "dau every-day", "dau any-day", "dau retention");
	}

	@Test
	void retentionRateIsTheShareOfTheCohortThatCameBack() {
		DailyActivity activity = this.registry.activity("configured");
		for (long user = 0; user < 10; user++) {
			activity.markActive(user, START);
		}
		activity.markActive(3, START.plusDays(7));
		activity.markActive(4, START.plusDays(7));
		activity.markActive(99, START.plusDays(7));
		assertThat(activity.retention(START, 7)).isEqualTo(new Retention(10, 2));
		assertThat(activity.retention(START, 7).rate()).isEqualTo(0.2);
		assertThat(activity.retention(START.minusDays(1), 1).rate()).as("an empty cohort").isZero();
	}

	@Test
	void aMarkAtAnInstantFallsOnTheZonesDay() {
		DailyActivity activity = this.registry.activity("configured");
		// 23:30 UTC on 29 February is 00:30 on 1 March in Paris.
		assertThat(activity.markActive(7, Instant.parse("2024-02-29T23:30:00Z"))).isTrue();
		assertThat(activity.isActive(7, LocalDate.of(2024, 3, 1))).isTrue();
		assertThat(activity.isActive(7, LocalDate.of(2024, 2, 29))).isFalse();
	}

	@Test
	void idsOutsideTheBoundAndBadRangesAreRefusedBeforeRedis() {
		DailyActivity activity = this.registry.createActivity("small", DailyActivitySpec.of(PARIS).withMaxUserId(1_000));
		assertThat(activity.markActive(1_000, START)).isTrue();
		assertThatIllegalArgumentException().isThrownBy(() -> activity.markActive(1_001, START))
			.withMessage("userId must be from 0 to 1000 (the maxUserId of daily activity 'small'), was 1001");
		assertThatIllegalArgumentException().isThrownBy(() -> activity.markActiveAsync(-1, START));
		assertThatIllegalArgumentException().isThrownBy(() -> activity.isActive(1L << 32, START));
		assertThatIllegalArgumentException().isThrownBy(() -> activity.countActiveAnyDay(START, START.minusDays(1)))
			.withMessageContaining("to must not be before from");
		assertThatIllegalArgumentException().isThrownBy(() -> activity.countActiveEveryDayAsync(START, START.plusDays(400)))
			.withMessageContaining("at most 400 days");
		assertThatIllegalArgumentException().isThrownBy(() -> activity.retention(START, 0))
			.withMessage("afterDays must be from 1 to 400, was 0");
		assertThat(activity.countActiveEveryDay(START, START.plusDays(399))).as("400 days: allowed, all empty but one")
			.isZero();
		assertThat((Long) redis.server().command("STRLEN", "rk:activity:{small}:" + START)).isEqualTo(126L);
	}

	@Test
	void specsAreValidated() {
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> DailyActivitySpec.of(PARIS).withMaxUserId(1L << 32))
			.withMessageContaining("maxUserId");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> DailyActivitySpec.of(PARIS).withRetention(Duration.ofMillis(10)))
			.withMessageContaining("retention");
	}

	@Test
	void aMarkPastTheRetentionIsRefusedAndWritesNothing() {
		DailyActivity kept = this.registry.createActivity("kept",
				DailyActivitySpec.of(PARIS).withRetention(Duration.ofDays(30)));
		LocalDate longAgo = LocalDate.now(PARIS).minusDays(40);
		assertThatExceptionOfType(RetentionPassedException.class).isThrownBy(() -> kept.markActive(1, longAgo))
			.withMessageContaining("Daily activity 'kept'")
			.withMessageContaining("a mark on " + longAgo)
			.withMessageContaining("nothing was written");
		assertThat(kept.markActiveAsync(1, longAgo)).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(RetentionPassedException.class);
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of());
		LocalDate recent = LocalDate.now(PARIS).minusDays(10);
		assertThat(kept.markActive(1, recent)).isTrue();
		long expiresAt = recent.plusDays(1).atStartOfDay(PARIS).toInstant().plus(Duration.ofDays(30)).toEpochMilli();
		assertThat(redis.server().command("PEXPIRETIME", "rk:activity:{kept}:" + recent)).isEqualTo(expiresAt);
		assertThat(((RedisDailyActivity) kept).markActiveAsync(2, recent, expiresAt))
			.as("refused on the server's (here pinned) clock once the day's expiry has come")
			.failsWithin(Duration.ofSeconds(5));
		assertThat(kept.isActive(2, recent)).isFalse();
	}

	private static BitSet bits(Map<LocalDate, BitSet> model, LocalDate day) {
		return model.getOrDefault(day, new BitSet());
	}

}

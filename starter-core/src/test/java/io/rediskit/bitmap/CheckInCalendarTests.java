package io.rediskit.bitmap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.RetentionPassedException;
import io.rediskit.testsupport.RedisServerBinary;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Check-in calendars against a real redis-server, on pinned dates: month ends, leap years, zones, streaks. */
class CheckInCalendarTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");

	BitmapRegistry registry;

	CheckInCalendar calendar;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new BitmapRegistry(redis.scripts(), CommandExecutor.of(redis.connections()), KeyNaming.defaults(),
				(name) -> null);
		this.calendar = this.registry.createCalendar("login", CheckInCalendarSpec.of(TOKYO));
	}

	@Test
	void checkInsAreBitsOfOneKeyPerUserPerMonth() throws Exception {
		LocalDate leapDay = LocalDate.of(2024, 2, 29);
		assertThat(this.calendar.checkIn("alice", leapDay)).isTrue();
		assertThat(this.calendar.checkIn("alice", leapDay)).isFalse();
		assertThat(this.calendar.checkInAsync("alice", LocalDate.of(2024, 2, 1)).toCompletableFuture()
			.get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.calendar.hasCheckedIn("alice", leapDay)).isTrue();
		assertThat(this.calendar.hasCheckedIn("alice", LocalDate.of(2024, 2, 28))).isFalse();
		assertThat(this.calendar.hasCheckedIn("bob", leapDay)).isFalse();
		assertThat(this.calendar.countInMonth("alice", YearMonth.of(2024, 2))).isEqualTo(2);
		assertThat(this.calendar.firstCheckIn("alice", YearMonth.of(2024, 2))).contains(LocalDate.of(2024, 2, 1));
		assertThat(this.calendar.firstCheckIn("alice", YearMonth.of(2024, 3))).isEqualTo(Optional.empty());
		List<Boolean> february = this.calendar.calendar("alice", YearMonth.of(2024, 2));
		assertThat(february).hasSize(29);
		assertThat(february.get(0)).isTrue();
		assertThat(february.get(28)).isTrue();
		assertThat(february.subList(1, 28)).containsOnly(false);
		assertThat(this.calendar.calendar("alice", YearMonth.of(2023, 2))).hasSize(28).containsOnly(false);
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of("rk:bitmap:{login:alice}:2024-02"));
	}

	@Test
	void aCheckInAtAnInstantFallsOnTheCalendarsDay() {
		// 15:30 UTC on 31 January is 00:30 on 1 February in Tokyo: a new month.
		this.calendar.checkIn("alice", Instant.parse("2024-01-31T15:30:00Z"));
		assertThat(this.calendar.hasCheckedIn("alice", LocalDate.of(2024, 2, 1))).isTrue();
		assertThat(this.calendar.hasCheckedIn("alice", LocalDate.of(2024, 1, 31))).isFalse();
	}

	@Test
	void streaksRunAcrossMonthAndYearEnds() {
		for (LocalDate day = LocalDate.of(2023, 12, 28); !day.isAfter(LocalDate.of(2024, 3, 2)); day = day.plusDays(1)) {
			this.calendar.checkIn("alice", day);
		}
		assertThat(this.calendar.streak("alice", LocalDate.of(2024, 3, 2))).isEqualTo(4 + 31 + 29 + 2);
		assertThat(this.calendar.streak("alice", LocalDate.of(2024, 1, 1))).isEqualTo(5);
		assertThat(this.calendar.streak("alice", LocalDate.of(2024, 3, 3))).isZero();
		this.calendar.checkIn("bob", LocalDate.of(2024, 3, 1));
		assertThat(this.calendar.streak("bob", LocalDate.of(2024, 3, 1))).isEqualTo(1);
		this.calendar.checkIn("bob", LocalDate.of(2024, 2, 29));
		this.calendar.checkIn("bob", LocalDate.of(2024, 2, 27));
		assertThat(this.calendar.streak("bob", LocalDate.of(2024, 3, 1))).as("stops at the missing 28th").isEqualTo(2);
	}

	@Test
	void monthsExpireTheirRetentionAfterTheMonthEnds() {
		RedisServerBinary.assumeAtLeast(7, 0, "PEXPIRETIME");
		CheckInCalendar kept = this.registry.createCalendar("kept",
				CheckInCalendarSpec.of(TOKYO).withRetention(Duration.ofDays(365)));
		LocalDate today = LocalDate.now(TOKYO);
		kept.checkIn("alice", today);
		long expected = YearMonth.from(today).plusMonths(1).atDay(1).atStartOfDay(TOKYO).toInstant()
			.plus(Duration.ofDays(365)).toEpochMilli();
		assertThat(redis.server().command("PEXPIRETIME", "rk:bitmap:{kept:alice}:" + YearMonth.from(today)))
			.isEqualTo(expected);
	}

	@Test
	void aCheckInPastTheRetentionIsRefusedAndWritesNothing() throws Exception {
		// docs/counters.md's example: a 400-day retention, and a check-in into a month that ended longer ago.
		CheckInCalendar kept = this.registry.createCalendar("kept",
				CheckInCalendarSpec.of(TOKYO).withRetention(Duration.ofDays(400)));
		LocalDate longAgo = LocalDate.now(TOKYO).minusDays(500);
		assertThatExceptionOfType(RetentionPassedException.class).isThrownBy(() -> kept.checkIn("ada", longAgo))
			.withMessageContaining("Check-in calendar 'kept'")
			.withMessageContaining("a check-in on " + longAgo)
			.withMessageContaining("retention of 400d")
			.withMessageContaining("nothing was written")
			.satisfies((ex) -> assertThat(ex.getExpiredAt()).isBefore(Instant.now()));
		assertThat(kept.checkInAsync("ada", longAgo.minusDays(1)))
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(RetentionPassedException.class);
		assertThat(kept.hasCheckedIn("ada", longAgo)).isFalse();
		assertThat(kept.countInMonth("ada", YearMonth.from(longAgo))).isZero();
		assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of());
		// A month still inside its retention is written and reported as new.
		LocalDate recent = LocalDate.now(TOKYO).minusDays(300);
		assertThat(kept.checkIn("ada", recent)).isTrue();
		assertThat(kept.streak("ada", recent)).isEqualTo(1);
	}

	@Test
	void theCheckInScriptRefusesAMonthWhoseExpiryHasComeOnTheServersClock() {
		byte[] key = "rk:bitmap:{pinned:ada}:2024-02".getBytes(StandardCharsets.UTF_8);
		long expiresAt = 1_000_000;
		assertThat(runCheckIn(key, expiresAt, expiresAt)).as("expiring now").isEqualTo(-1);
		assertThat(redis.server().command("EXISTS", "rk:bitmap:{pinned:ada}:2024-02")).isEqualTo(0L);
		assertThat(runCheckIn(key, 0, Long.MAX_VALUE / 2)).as("no retention: never refused").isEqualTo(0);
		redis.server().command("DEL", "rk:bitmap:{pinned:ada}:2024-02");
		long future = System.currentTimeMillis() + 3_600_000;
		assertThat(runCheckIn(key, future, future - 1)).as("a millisecond to go").isEqualTo(0);
		assertThat(runCheckIn(key, future, future - 1)).as("the same day again").isEqualTo(1);
		assertThat(redis.server().command("PEXPIRETIME", "rk:bitmap:{pinned:ada}:2024-02")).isEqualTo(future);
	}

	private long runCheckIn(byte[] key, long expiresAt, long now) {
		Long reply = redis.scripts().execute(BitmapScripts.CHECK_IN, ReturnType.INTEGER, 1,
				BitmapScripts.checkIn(key, LocalDate.of(2024, 2, 29), expiresAt, now));
		return (reply != null) ? reply : Long.MIN_VALUE;
	}

	@Test
	void usersAreDataInTheKey() {
		for (String user : List.of("{x}", "a:b", "", "Zoë 🚀", "u".repeat(10_000))) {
			assertThat(this.calendar.checkIn(user, LocalDate.of(2024, 5, 5))).as(user).isTrue();
			assertThat(this.calendar.streak(user, LocalDate.of(2024, 5, 5))).isEqualTo(1);
		}
		@SuppressWarnings("unchecked")
		List<String> keys = (List<String>) redis.server().command("KEYS", "*");
		assertThat(keys).hasSize(5).allSatisfy((key) -> assertThat(key.length()).isLessThan(400));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> CheckInCalendarSpec.of(TOKYO).withRetention(Duration.ZERO));
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.calendar("unknown"))
			.withMessageContaining("redis-kit.counter.calendars.unknown");
	}

	@Test
	void theReadsHaveAsyncFormsWithTheSameAnswers() throws Exception {
		LocalDate day = LocalDate.of(2024, 5, 3);
		this.calendar.checkIn("carol", day);
		YearMonth may = YearMonth.of(2024, 5);
		assertThat(this.calendar.hasCheckedInAsync("carol", day).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.calendar.hasCheckedInAsync("carol", day.plusDays(1)).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.isFalse();
		assertThat(this.calendar.countInMonthAsync("carol", may).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(this.calendar.firstCheckInAsync("carol", may).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.contains(day);
		assertThat(this.calendar.calendarAsync("carol", may).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.isEqualTo(this.calendar.calendar("carol", may));
	}

}

package io.rediskit.support;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendar;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSpec;
import io.rediskit.bloom.BloomMode;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoPoint;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.id.IdGeneratorSpec;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.LeaderboardSpec;
import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.recent.RecentItemsSpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every call of an operation-shaped structure (calendars, Bloom filters, counters, geo indexes, id generators,
 * leaderboards, recent items) is one observation of its area, {@code rediskit.<area>.operation}, tagged with the
 * configured name, the operation and the outcome, and with nothing a caller passed (a user, a member, an item).
 */
class OperationObservationTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final TestObservationRegistry observed = TestObservationRegistry.create();

	Observations observations;

	CommandExecutor commands;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.observations = Observations.of(this.observed, null);
		this.commands = CommandExecutor.of(redis.connections());
	}

	@Test
	void bitmapCallsAreObservedAndARefusedWriteEndsAsRefused() {
		BitmapRegistry registry = new BitmapRegistry(redis.scripts(), this.commands, KeyNaming.defaults(),
				(name) -> null);
		registry.setObservations(this.observations);
		CheckInCalendar logins = registry.createCalendar("logins",
				CheckInCalendarSpec.of(ZoneOffset.UTC).withRetention(Duration.ofDays(400)));
		logins.checkIn("alice@example.com", LocalDate.now(ZoneOffset.UTC));
		assertThatExceptionOfType(RetentionPassedException.class)
			.isThrownBy(() -> logins.checkIn("alice@example.com", LocalDate.now(ZoneOffset.UTC).minusDays(500)));
		assertOperations("rediskit.bitmap.operation", "bitmap check-in logins", "logins", "check-in", 2);
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasAnObservation((call) -> call.hasLowCardinalityKeyValue("outcome", "success").doesNotHaveError())
			.hasAnObservation((call) -> call.hasLowCardinalityKeyValue("outcome", "refused")
				.assertThatError()
				.isInstanceOf(RetentionPassedException.class));
	}

	@Test
	void bloomCallsAreObserved() {
		BloomFilterRegistry registry = new BloomFilterRegistry(redis.scripts(), this.commands, KeyNaming.defaults(),
				BloomMode.BITMAP, List.of(), (name) -> null);
		registry.setObservations(this.observations);
		BloomFilter seen = registry.create("seen", BloomFilterSpec.of(1000, 0.01));
		seen.add("alice@example.com");
		assertOperations("rediskit.bloom.operation", "bloom add seen", "seen", "add", 1);
	}

	@Test
	void counterCallsAreObserved() {
		UniqueCounterRegistry registry = new UniqueCounterRegistry(redis.scripts(), this.commands,
				KeyNaming.defaults(), (name) -> null);
		registry.setObservations(this.observations);
		UniqueCounter visitors = registry.create("visitors", UniqueCounterSpec.daily(ZoneOffset.UTC));
		visitors.add("alice@example.com");
		assertOperations("rediskit.counter.operation", "counter add visitors", "visitors", "add", 1);
	}

	@Test
	void geoCallsAreObservedAndAFailedCallEndsAsError() {
		GeoIndexRegistry registry = new GeoIndexRegistry(redis.scripts(), this.commands, KeyNaming.defaults(),
				List.of(), (name) -> null);
		registry.setObservations(this.observations);
		GeoIndex bikes = registry.create("bikes", GeoIndexSpec.unsharded());
		bikes.put("bike-7", GeoPoint.ofLatLon(48.8606, 2.3376));
		assertOperations("rediskit.geo.operation", "geo put bikes", "bikes", "put", 1);
		redis.server().command("SET", "rk:geo:{bikes}", "not a geo set");
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> bikes.put("bike-8", GeoPoint.ofLatLon(48.8606, 2.3376)));
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasAnObservation((call) -> call.hasLowCardinalityKeyValue("outcome", "error").assertThatError().isNotNull());
	}

	@Test
	void idBlocksAreObserved() {
		IdGeneratorRegistry registry = new IdGeneratorRegistry(this.commands, KeyNaming.defaults(), (name) -> null);
		registry.setObservations(this.observations);
		registry.create("orders", IdGeneratorSpec.ofBlockSize(10)).next();
		assertOperations("rediskit.id.operation", "id block orders", "orders", "block", 1);
	}

	@Test
	void leaderboardCallsAreObserved() {
		LeaderboardRegistry registry = new LeaderboardRegistry(redis.scripts(), this.commands, KeyNaming.defaults(),
				List.of(), (name) -> null, Clock.systemUTC());
		registry.setObservations(this.observations);
		Leaderboard scores = registry.create("scores", LeaderboardSpec.of(ZoneOffset.UTC));
		scores.add("alice@example.com", 10);
		assertOperations("rediskit.rank.operation", "leaderboard write scores", "scores", "write", 1);
	}

	@Test
	void recentItemsCallsAreObserved() {
		RecentItemsRegistry registry = new RecentItemsRegistry(redis.scripts(), this.commands, KeyNaming.defaults(),
				(name) -> null, Clock.systemUTC());
		registry.setObservations(this.observations);
		RecentItems viewed = registry.create("viewed", RecentItemsSpec.of(10));
		viewed.view("alice@example.com", "p1");
		assertOperations("rediskit.recent.operation", "recent items view viewed", "viewed", "view", 1);
	}

	@Test
	void withoutObservationsNothingIsObserved() {
		UniqueCounterRegistry registry = new UniqueCounterRegistry(redis.scripts(), this.commands,
				KeyNaming.defaults(), (name) -> null);
		registry.create("visitors", UniqueCounterSpec.daily(ZoneOffset.UTC)).add("alice@example.com");
		TestObservationRegistryAssert.assertThat(this.observed).doesNotHaveAnyObservation();
	}

	private void assertOperations(String name, String contextualName, String configuredName, String operation,
			int count) {
		TestObservationRegistryAssert.assertThat(this.observed)
			.hasNumberOfObservationsWithNameEqualTo(name, count)
			.forAllObservationsWithNameEqualTo(name, (call) -> call.doesNotHaveLowCardinalityKeyValue("outcome", "unknown")
				.hasContextualNameEqualTo(contextualName)
				.hasLowCardinalityKeyValue("name", configuredName)
				.hasLowCardinalityKeyValue("operation", operation)
				.hasLowCardinalityKeyValueWithKey("outcome")
				.doesNotHaveHighCardinalityKeyValueWithKey("user")
				.doesNotHaveLowCardinalityKeyValueWithKey("user"));
	}

}

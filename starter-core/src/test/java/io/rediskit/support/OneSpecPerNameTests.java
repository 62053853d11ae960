package io.rediskit.support;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendar;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.Overflow;
import io.rediskit.bitmap.PackedCounterSpec;
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
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.ratelimit.RateLimitAlgorithm;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The one rule of every registry that hands out handles by name ({@link NamedSpecs}): a name has one spec. Run
 * for each registry with a configuration that a test changes, as a refresh would.
 */
class OneSpecPerNameTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	/** What a test does with one registry, whatever its area. */
	interface Registry {

		Object create(String name, Object spec);

		Object get(String name);

		Object specOf(Object handle);

	}

	/**
	 * @param kind how the area's messages name a handle
	 * @param property the configuration's map of specs
	 * @param spec a spec
	 * @param other a spec that differs from it
	 * @param third a spec that differs from both
	 * @param registry a registry over a configuration, the specs by name, which a test may change
	 */
	record Area(String kind, String property, Object spec, Object other, Object third,
			Function<Map<String, Object>, Registry> registry) {

		@Override
		public String toString() {
			return this.kind;
		}

	}

	static Stream<Area> areas() {
		KeyNaming keys = KeyNaming.defaults();
		CommandExecutor commands = CommandExecutor.of(redis.connections());
		return Stream.of(
				new Area("Rate limiter", "redis-kit.rate-limit.limiters",
						RateLimitSpec.of(RateLimitAlgorithm.GCRA, 10, Duration.ofMinutes(1)),
						RateLimitSpec.of(RateLimitAlgorithm.GCRA, 20, Duration.ofMinutes(1)),
						RateLimitSpec.of(RateLimitAlgorithm.TOKEN_BUCKET, 20, Duration.ofMinutes(1)), (configured) -> {
							RateLimiterRegistry registry = new RateLimiterRegistry(redis.scripts(), redis.connections(), keys,
									List.of(), ConfiguredSpecs.of(() -> configured, RateLimitSpec.class::cast));
							return registry(registry::create, registry::get, RateLimiter::spec, RateLimitSpec.class);
						}),
				new Area("Queue", "redis-kit.queue.queues", QueueSpec.defaults(), QueueSpec.defaults().withMaxDeliveries(3),
						QueueSpec.defaults().withMaxDeliveries(7), (configured) -> {
							QueueRegistry registry = new QueueRegistry(redis.scripts(), redis.connections(), keys,
									JsonMapper.builder().build(), List.of(),
									ConfiguredSpecs.of(() -> configured, QueueSpec.class::cast));
							return registry((name, spec) -> registry.create(name, spec, String.class),
									(name) -> registry.get(name, String.class), RedisQueue::spec, QueueSpec.class);
						}),
				new Area("Bloom filter", "redis-kit.bloom.filters", BloomFilterSpec.of(1000, 0.01),
						BloomFilterSpec.of(2000, 0.01), BloomFilterSpec.of(1000, 0.001), (configured) -> {
							BloomFilterRegistry registry = new BloomFilterRegistry(redis.scripts(), commands, keys,
									BloomMode.BITMAP, List.of(),
									ConfiguredSpecs.of(() -> configured, BloomFilterSpec.class::cast));
							return registry(registry::create, registry::get, BloomFilter::spec, BloomFilterSpec.class);
						}),
				new Area("Unique counter", "redis-kit.counter.counters", UniqueCounterSpec.daily(ZoneOffset.UTC),
						UniqueCounterSpec.hourly(ZoneOffset.UTC), UniqueCounterSpec.daily(ZoneId.of("Europe/Paris")),
						(configured) -> {
							UniqueCounterRegistry registry = new UniqueCounterRegistry(redis.scripts(), commands, keys,
									ConfiguredSpecs.of(() -> configured, UniqueCounterSpec.class::cast));
							return registry(registry::create, registry::get, UniqueCounter::spec, UniqueCounterSpec.class);
						}),
				new Area("Check-in calendar", "redis-kit.counter.calendars", CheckInCalendarSpec.of(ZoneOffset.UTC),
						CheckInCalendarSpec.of(ZoneOffset.UTC).withRetention(Duration.ofDays(400)),
						CheckInCalendarSpec.of(ZoneId.of("Asia/Tokyo")), (configured) -> {
							BitmapRegistry registry = new BitmapRegistry(redis.scripts(), commands, keys,
									ConfiguredSpecs.of(() -> configured, CheckInCalendarSpec.class::cast));
							return registry(registry::createCalendar, registry::calendar, CheckInCalendar::spec,
									CheckInCalendarSpec.class);
						}),
				new Area("Geo index", "redis-kit.geo.indexes", GeoIndexSpec.byCell(26),
						GeoIndexSpec.byCell(20), GeoIndexSpec.unsharded(), (configured) -> {
							GeoIndexRegistry registry = new GeoIndexRegistry(redis.scripts(), commands, keys, List.of(),
									ConfiguredSpecs.of(() -> configured, GeoIndexSpec.class::cast));
							return registry(registry::create, registry::get, GeoIndex::spec, GeoIndexSpec.class);
						}));
	}

	static <S, H> Registry registry(java.util.function.BiFunction<String, S, H> create, Function<String, H> get,
			Function<H, S> specOf, Class<S> specType) {
		return new Registry() {

			@Override
			public Object create(String name, Object spec) {
				return create.apply(name, specType.cast(spec));
			}

			@Override
			public Object get(String name) {
				return get.apply(name);
			}

			@Override
			@SuppressWarnings("unchecked")
			public Object specOf(Object handle) {
				return specOf.apply((H) handle);
			}

		};
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void aSpecInCodeThatDiffersFromTheConfiguredOneIsRefused(Area area) {
		Map<String, Object> configuration = new HashMap<>(Map.of("bikes", area.spec()));
		Registry registry = area.registry().apply(configuration);
		assertThatExceptionOfType(SpecConflictException.class).isThrownBy(() -> registry.create("bikes", area.other()))
			.withMessageStartingWith(area.kind() + " 'bikes' cannot have two specs: configured under " + area.property()
					+ ".bikes it is " + area.spec() + ", passed to create it is " + area.other() + " (differing: ")
			.withMessageContaining("Use get(\"bikes\") for the configured one")
			.satisfies((ex) -> assertThat(ex.getKnownSpec()).isEqualTo(area.spec()))
			.satisfies((ex) -> assertThat(ex.getRequestedSpec()).isEqualTo(area.other()));
		assertThat(registry.specOf(registry.get("bikes"))).as("the configured spec, unchanged").isEqualTo(area.spec());
		// The configured spec again: the configured handle, however often.
		assertThat(registry.specOf(registry.create("bikes", area.spec()))).isEqualTo(area.spec());
		assertThat(registry.specOf(registry.create("bikes", area.spec()))).isEqualTo(area.spec());
		assertThat(registry.specOf(registry.get("bikes"))).isEqualTo(area.spec());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void aNameCreatedInCodeFollowsTheRuleOfConfiguredNamesAndIsNotRepeated(Area area) {
		Registry registry = area.registry().apply(Map.of());
		// A name such a registry keeps a spec for may be configured later: code and configuration meet on it.
		for (String name : List.of("secret.v1", "secret:v1", "secret v1", "", "secret-" + "x".repeat(64))) {
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> registry.create(name, area.spec()))
				.withMessageContaining(" name must be " + Names.RULE)
				.withMessageNotContaining("secret");
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void aNameCreatedInCodeKeepsItsOneSpec(Area area) {
		Registry registry = area.registry().apply(Map.of());
		Object first = registry.create("made", area.spec());
		assertThatExceptionOfType(SpecConflictException.class).isThrownBy(() -> registry.create("made", area.other()))
			.withMessageStartingWith(area.kind() + " 'made' cannot have two specs: created in code before, it is "
					+ area.spec() + ", passed to create now it is " + area.other())
			.withMessageContaining("create it once and share the handle, or give the other spec another name");
		assertThat(registry.specOf(registry.get("made"))).isEqualTo(area.spec());
		if (!(first instanceof RedisQueue<?>)) {
			// A queue hands out a handle per payload type; the others one handle per name.
			assertThat(registry.create("made", area.spec())).isSameAs(first);
			assertThat(registry.get("made")).isSameAs(first);
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void aChangedConfigurationIsAReloadNotASecondSpec(Area area) {
		Map<String, Object> configuration = new HashMap<>(Map.of("bikes", area.spec()));
		Registry registry = area.registry().apply(configuration);
		assertThat(registry.specOf(registry.get("bikes"))).isEqualTo(area.spec());
		// What a Spring Cloud refresh does: the next get runs with the new configuration.
		configuration.put("bikes", area.other());
		assertThat(registry.specOf(registry.get("bikes"))).isEqualTo(area.other());
		assertThat(registry.specOf(registry.create("bikes", area.other()))).isEqualTo(area.other());
		assertThatExceptionOfType(SpecConflictException.class).isThrownBy(() -> registry.create("bikes", area.spec()));
		// Created in code with the configured spec, a name follows its configuration.
		configuration.put("bikes", area.third());
		assertThat(registry.specOf(registry.get("bikes"))).isEqualTo(area.third());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void aNameCreatedInCodeAndConfiguredDifferentlyLaterFailsOnGet(Area area) {
		Map<String, Object> configuration = new HashMap<>();
		Registry registry = area.registry().apply(configuration);
		registry.create("made", area.spec());
		configuration.put("made", area.other());
		assertThatExceptionOfType(SpecConflictException.class).isThrownBy(() -> registry.get("made"))
			.withMessageStartingWith(area.kind() + " 'made' cannot have two specs: created in code it is " + area.spec()
					+ ", configured under " + area.property() + ".made since it is " + area.other());
		// Configured as it was created: both agree, and the handle stays.
		configuration.put("made", area.spec());
		assertThat(registry.specOf(registry.get("made"))).isEqualTo(area.spec());
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("areas")
	void anUnknownNameIsToldTheClosestConfiguredNameNeverOneCreatedInCode(Area area) {
		Map<String, Object> configuration = new HashMap<>(Map.of("bikes", area.spec()));
		Registry registry = area.registry().apply(configuration);
		registry.create("orders", area.other());
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> registry.get("bkes"))
			.withMessageEndingWith(" named 'bkes' (did you mean 'bikes'?): configure " + area.property()
					+ ".bkes or create it in code first");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> registry.get("bik.es"))
			.withMessageContaining(" named 'bik.es' (did you mean 'bikes'?), and none can be: names are ");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> registry.get("ordrs"))
			.as("a name created in code may be data the application received")
			.withMessageEndingWith(
					" named 'ordrs': configure " + area.property() + ".ordrs or create it in code first");
		// A configuration that changed since is what is suggested.
		configuration.put("bicycles", configuration.remove("bikes"));
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> registry.get("bycicles"))
			.withMessageContaining(" named 'bycicles' (did you mean 'bicycles'?): ");
	}

	@Test
	void packedCountersKeepTheirOneSpec() {
		BitmapRegistry registry = new BitmapRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), (name) -> null);
		PackedCounterSpec u16 = PackedCounterSpec.unsigned(16, Overflow.SAT);
		var hits = registry.createPackedCounters("hits", u16);
		assertThatExceptionOfType(SpecConflictException.class)
			.isThrownBy(() -> registry.createPackedCounters("hits", PackedCounterSpec.unsigned(8, Overflow.SAT)))
			.withMessageContaining("Packed counters 'hits' cannot have two specs")
			.withMessageContaining("(differing: width 16 against 8)");
		assertThat(registry.createPackedCounters("hits", u16)).isSameAs(hits);
		assertThat(registry.packedCounters("hits")).isSameAs(hits);
	}

}

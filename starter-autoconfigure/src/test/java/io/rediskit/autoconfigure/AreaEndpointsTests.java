package io.rediskit.autoconfigure;

import java.util.List;

import io.rediskit.autoconfigure.bitmap.BitmapAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterAutoConfiguration;
import io.rediskit.autoconfigure.counter.CounterEndpointAutoConfiguration;
import io.rediskit.autoconfigure.counter.RedisCounterEndpoint;
import io.rediskit.autoconfigure.geo.GeoAutoConfiguration;
import io.rediskit.autoconfigure.geo.GeoEndpointAutoConfiguration;
import io.rediskit.autoconfigure.geo.RedisGeoEndpoint;
import io.rediskit.autoconfigure.id.IdAutoConfiguration;
import io.rediskit.autoconfigure.id.IdEndpointAutoConfiguration;
import io.rediskit.autoconfigure.id.RedisIdEndpoint;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankEndpointAutoConfiguration;
import io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint;
import io.rediskit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RateLimitEndpointAutoConfiguration;
import io.rediskit.autoconfigure.ratelimit.RedisRateLimitEndpoint;
import io.rediskit.autoconfigure.recent.RecentAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentEndpointAutoConfiguration;
import io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoPoint;
import io.rediskit.id.IdGeneratorRegistry;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.ratelimit.RateLimiterRegistry;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The actuator endpoints the console reads beside the lock's, queue's, Bloom filters' and cache's: registered only
 * when exposed, each listing the configured entries and those used in code, with what Redis holds now; a lookup
 * refuses a name the endpoint does not list without echoing it.
 */
class AreaEndpointsTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private static final String EXPOSED = "management.endpoints.web.exposure.include="
			+ "rediskitratelimit,rediskitcounter,rediskitgeo,rediskitleaderboard,rediskitrecentitems,rediskitid";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				EndpointAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitEndpointAutoConfiguration.class, CounterAutoConfiguration.class, BitmapAutoConfiguration.class,
				CounterEndpointAutoConfiguration.class, GeoAutoConfiguration.class, GeoEndpointAutoConfiguration.class,
				RankAutoConfiguration.class, RankEndpointAutoConfiguration.class, RecentAutoConfiguration.class,
				RecentEndpointAutoConfiguration.class, IdAutoConfiguration.class, IdEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"redis-kit.rate-limit.limiters.login.algorithm=sliding-log",
				"redis-kit.rate-limit.limiters.login.limit=5", "redis-kit.rate-limit.limiters.login.period=1m",
				"redis-kit.counter.counters.visitors.bucket=daily", "redis-kit.counter.counters.visitors.zone=UTC",
				"redis-kit.counter.counters.visitors.retention=400d", "redis-kit.counter.calendars.check-in.zone=UTC",
				"redis-kit.counter.activities.logins.zone=UTC", "redis-kit.geo.indexes.bikes.max-limit=100",
				"redis-kit.leaderboard.leaderboards.scores.zone=UTC", "redis-kit.recent-items.lists.viewed.capacity=5",
				"redis-kit.id.generators.order-ids.block-size=100");

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void noEndpointUnlessExposed() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(RedisRateLimitEndpoint.class)
			.doesNotHaveBean(RedisCounterEndpoint.class)
			.doesNotHaveBean(RedisGeoEndpoint.class)
			.doesNotHaveBean(RedisLeaderboardEndpoint.class)
			.doesNotHaveBean(RedisRecentItemsEndpoint.class)
			.doesNotHaveBean(RedisIdEndpoint.class));
	}

	@Test
	void limitersAreListedWithTheirPolicyAndAKeyIsReadWithoutTakingAPermit() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			RateLimiterRegistry limiters = context.getBean(RateLimiterRegistry.class);
			assertThat(limiters.get("login").tryAcquire("user:42").allowed()).isTrue();
			RedisRateLimitEndpoint endpoint = context.getBean(RedisRateLimitEndpoint.class);
			assertThat(endpoint.limiters().limiters()).singleElement().satisfies((limiter) -> {
				assertThat(limiter.name()).isEqualTo("login");
				assertThat(limiter.algorithm()).isEqualTo("sliding-log");
				assertThat(limiter.limit()).isEqualTo(5);
				assertThat(limiter.period()).isEqualTo("1m");
				assertThat(limiter.failurePolicy()).isEqualTo("fail-open");
				assertThat(limiter.error()).isNull();
			});
			RedisRateLimitEndpoint.KeyStateDescriptor state = endpoint.key("login", "user:42");
			assertThat(state.toString()).as("the key is user input, never echoed").doesNotContain("user:42");
			assertThat(state.limiter()).isEqualTo("login");
			assertThat(state.limit()).isEqualTo(5);
			assertThat(state.remaining()).isEqualTo(4);
			assertThat(endpoint.key("login", "user:42").remaining()).as("read again: no permit was taken").isEqualTo(4);
			assertThat(endpoint.key("<img src=x onerror=alert(1)>", "k")).as("answered 404 over HTTP").isNull();
			assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.key("login", ""))
				.withMessage("key must have 1 to 1024 characters");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.keyState("<img src=x onerror=alert(1)>", "k"))
				.withMessage("No rate limiter is named so");
			assertThatIllegalArgumentException().isThrownBy(() -> endpoint.keyState("login", ""));
		});
	}

	@Test
	void countersCalendarsAndActivitiesAreListedWithTheirCounts() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			context.getBean(UniqueCounterRegistry.class).get("visitors").addAll(List.of("ada", "bob", "ada"));
			context.getBean(BitmapRegistry.class).activity("logins").markActive(7, java.time.Instant.now());
			RedisCounterEndpoint endpoint = context.getBean(RedisCounterEndpoint.class);
			RedisCounterEndpoint.CountersDescriptor described = endpoint.counters();
			assertThat(described.countersConfigured()).isTrue();
			assertThat(described.counters()).singleElement().satisfies((counter) -> {
				assertThat(counter.name()).isEqualTo("visitors");
				assertThat(counter.bucket()).isEqualTo("daily");
				assertThat(counter.retention()).isEqualTo("400d");
				assertThat(counter.count()).isEqualTo(2);
			});
			assertThat(described.calendars()).extracting(RedisCounterEndpoint.CalendarDescriptor::name)
				.containsExactly("check-in");
			assertThat(described.activities()).singleElement().satisfies((activity) -> {
				assertThat(activity.name()).isEqualTo("logins");
				assertThat(activity.activeToday()).isEqualTo(1);
			});
			assertThat(endpoint.size()).isEqualTo(3);
		});
	}

	@Test
	void geoIndexesAreListedWithTheirMembers() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			context.getBean(GeoIndexRegistry.class).get("bikes").put("bike-1", new GeoPoint(2.35, 48.85));
			RedisGeoEndpoint endpoint = context.getBean(RedisGeoEndpoint.class);
			assertThat(endpoint.indexes().indexes()).singleElement().satisfies((index) -> {
				assertThat(index.name()).isEqualTo("bikes");
				assertThat(index.maxLimit()).isEqualTo(100);
				assertThat(index.members()).isEqualTo(1);
			});
		});
	}

	@Test
	void leaderboardsShowTheirTopAndOneMembersRank() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			LeaderboardRegistry boards = context.getBean(LeaderboardRegistry.class);
			boards.get("scores").set("ada", 30);
			boards.get("scores").set("<img src=x onerror=alert(1)>", 20);
			RedisLeaderboardEndpoint endpoint = context.getBean(RedisLeaderboardEndpoint.class);
			assertThat(endpoint.leaderboards(true).leaderboards()).singleElement().satisfies((board) -> {
				assertThat(board.size()).isEqualTo(2);
				assertThat(board.top()).extracting((entry) -> entry.member())
					.containsExactly("ada", "<img src=x onerror=alert(1)>");
			});
			RedisLeaderboardEndpoint.MemberRankDescriptor rank = endpoint.member("scores",
					"<img src=x onerror=alert(1)>");
			assertThat(rank.toString()).as("the member is user input, never echoed").doesNotContain("<img");
			assertThat(rank.ranked()).isTrue();
			assertThat(rank.rank()).isEqualTo(2);
			assertThat(endpoint.member("scores", "nobody").ranked()).isFalse();
			assertThat(endpoint.member("other", "ada")).as("answered 404 over HTTP").isNull();
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.member("scores", ""))
				.withMessage("member must have 1 to 1024 characters");
			assertThatIllegalArgumentException().isThrownBy(() -> endpoint.rank("other", "ada"))
				.withMessage("No leaderboard is named so");
		});
	}

	@Test
	void recentItemsShowWhatTrendsAndOneUsersItems() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			RecentItemsRegistry lists = context.getBean(RecentItemsRegistry.class);
			lists.get("viewed").view("ada", "book-1");
			lists.get("viewed").view("ada", "book-2");
			RedisRecentItemsEndpoint endpoint = context.getBean(RedisRecentItemsEndpoint.class);
			assertThat(endpoint.lists(true).lists()).singleElement().satisfies((list) -> {
				assertThat(list.capacity()).isEqualTo(5);
				assertThat(list.trending()).extracting((item) -> item.item()).contains("book-1", "book-2");
			});
			assertThat(endpoint.user(true, "viewed", "ada").items()).containsExactly("book-2", "book-1");
			assertThat(endpoint.user(false, "viewed", "ada").toString()).as("the user is user input, never echoed")
				.doesNotContain("ada");
			assertThatIllegalArgumentException().isThrownBy(() -> endpoint.user(true, "viewed", "x".repeat(1025)));
		});
	}

	@Test
	void idGeneratorsShowTheirBlockSizeAndHowFarTheyReserved() {
		this.runner.withPropertyValues(EXPOSED).run((context) -> {
			RedisIdEndpoint endpoint = context.getBean(RedisIdEndpoint.class);
			assertThat(endpoint.generators().generators()).singleElement()
				.satisfies((generator) -> assertThat(generator.reserved()).isZero());
			assertThat(context.getBean(IdGeneratorRegistry.class).get("order-ids").next()).isEqualTo(1);
			assertThat(endpoint.generators().generators()).singleElement().satisfies((generator) -> {
				assertThat(generator.name()).isEqualTo("order-ids");
				assertThat(generator.blockSize()).isEqualTo(100);
				assertThat(generator.reserved()).isEqualTo(100);
			});
		});
	}

}

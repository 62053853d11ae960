package io.rediskit.recent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Recent items against a real redis-server: order, cap, re-views, expiry, sliding trending, async, bad input. */
class RecentItemsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final AtomicLong millis = new AtomicLong(Instant.parse("2030-01-01T00:00:00Z").toEpochMilli());

	final Clock clock = new Clock() {
		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return Instant.ofEpochMilli(RecentItemsTests.this.millis.get());
		}
	};

	RecentItemsRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new RecentItemsRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), (name) -> null, this.clock);
	}

	@Test
	void newestFirstCappedAndAReviewMovesToTheFront() {
		RecentItems viewed = this.registry.create("products", RecentItemsSpec.of(3));
		// All in the same millisecond or so: the order must still be the order of the views.
		for (String item : List.of("p1", "p2", "p3", "p4")) {
			viewed.view("ada", item);
		}
		assertThat(viewed.recent("ada", 3)).containsExactly("p4", "p3", "p2");
		viewed.view("ada", "p2");
		assertThat(viewed.recent("ada", 3)).containsExactly("p2", "p4", "p3");
		viewed.view("ada", "p2");
		assertThat(viewed.recent("ada", 3)).containsExactly("p2", "p4", "p3");
		assertThat(viewed.recent("ada", 1)).containsExactly("p2");
		assertThat(viewed.recent("grace", 3)).isEmpty();
		viewed.forget("ada");
		assertThat(viewed.recent("ada", 3)).isEmpty();
	}

	@Test
	void aUsersListExpiresAfterTheIdleTtlFromTheLastView() {
		RecentItems viewed = this.registry.create("idle", RecentItemsSpec.of(10).withIdleTtl(Duration.ofDays(3)));
		viewed.view("ada", "p1");
		String key = KeyNaming.defaults().key("recent", "idle", "u:ada");
		assertThat((Long) redis.server().command("PTTL", key)).isBetween(Duration.ofDays(3).minusMinutes(1).toMillis(),
				Duration.ofDays(3).toMillis());
	}

	@Test
	void trendingCountsViewsOverTheSlidingPeriod() {
		// A period of 4 minutes in 4 buckets of one minute.
		RecentItems viewed = this.registry.create("trend",
				RecentItemsSpec.of(10).withTrending(Duration.ofMinutes(4), 4).withTrendingCacheTtl(Duration.ofMillis(1)));
		assertThat(viewed.view("u1", "a")).isEqualTo(1);
		assertThat(viewed.view("u2", "a")).isEqualTo(2);
		viewed.view("u1", "b");
		this.millis.addAndGet(Duration.ofMinutes(2).toMillis());
		viewed.view("u1", "b");
		viewed.view("u2", "b");
		assertThat(trending(viewed)).containsExactly(new TrendingItem("b", 3), new TrendingItem("a", 2));
		// Four buckets later, the first minute's views have left the period.
		this.millis.addAndGet(Duration.ofMinutes(2).toMillis());
		assertThat(trending(viewed)).containsExactly(new TrendingItem("b", 2));
		this.millis.addAndGet(Duration.ofMinutes(2).toMillis());
		assertThat(trending(viewed)).isEmpty();
	}

	private List<TrendingItem> trending(RecentItems viewed) {
		// The union is cached for 1 ms per bucket: wait (bounded) for the cache of this bucket to go.
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		long bucket = Math.floorDiv(this.millis.get(), viewed.spec().trendingPeriod().toMillis() / viewed.spec().trendingBuckets());
		String cache = KeyNaming.defaults().key("recent", viewed.name(), "t:union:" + bucket);
		while ((Long) redis.server().command("EXISTS", cache) == 1 && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		return viewed.trending(10);
	}

	@Test
	void trendingIsComputedOncePerCacheTtl() {
		RecentItems viewed = this.registry.create("cached",
				RecentItemsSpec.of(10).withTrendingCacheTtl(Duration.ofMinutes(10)));
		viewed.view("u", "a");
		assertThat(viewed.trending(5)).containsExactly(new TrendingItem("a", 1));
		viewed.view("u", "b");
		assertThat(viewed.trending(5)).containsExactly(new TrendingItem("a", 1));
	}

	@Test
	void asyncCallsAndBadInput() throws Exception {
		RecentItems viewed = this.registry.create("async", RecentItemsSpec.of(5));
		assertThat(viewed.viewAsync("ada", "x").toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(1);
		assertThat(viewed.recentAsync("ada", 5).toCompletableFuture().get(5, TimeUnit.SECONDS)).containsExactly("x");
		assertThat(viewed.trendingAsync(5).toCompletableFuture().get(5, TimeUnit.SECONDS))
			.containsExactly(new TrendingItem("x", 1));
		viewed.forgetAsync("ada").toCompletableFuture().get(5, TimeUnit.SECONDS);
		assertThat(viewed.recent("ada", 5)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> viewed.recentAsync("ada", 6))
			.withMessageContaining("count must be from 1 to the capacity 5");
		assertThatIllegalArgumentException().isThrownBy(() -> viewed.trendingAsync(0)).withMessageContaining("count");
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> RecentItemsSpec.of(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("capacity"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RecentItemsSpec.of(5).withTrending(Duration.ofMillis(1001), 2))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("trendingBuckets"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> RecentItemsSpec.of(5).withIdleTtl(Duration.ZERO))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("idleTtl"));
	}

	@Test
	void viewScriptWithPinnedTimeKeepsTheOrderOfViewsInOneMillisecond() {
		RedisRecentItems viewed = (RedisRecentItems) this.registry.create("pinned", RecentItemsSpec.of(5));
		long now = System.currentTimeMillis();
		for (String item : List.of("a", "b", "c")) {
			viewed.viewAsync("ada", item, now).toCompletableFuture().join();
		}
		viewed.viewAsync("ada", "a", now).toCompletableFuture().join();
		assertThat(viewed.recent("ada", 5)).containsExactly("a", "c", "b");
		// A view at an earlier time (another client's clock) still goes to the front.
		viewed.viewAsync("ada", "b", now - 60_000).toCompletableFuture().join();
		assertThat(viewed.recent("ada", 5)).containsExactly("b", "a", "c");
	}

}

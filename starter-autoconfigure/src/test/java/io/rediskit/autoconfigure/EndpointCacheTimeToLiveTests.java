package io.rediskit.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.rediskit.autoconfigure.lock.LockAutoConfiguration;
import io.rediskit.autoconfigure.lock.LockEndpointAutoConfiguration;
import io.rediskit.autoconfigure.lock.RedisLocksEndpoint;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankEndpointAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentEndpointAutoConfiguration;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static io.rediskit.autoconfigure.Askers.user;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@code management.endpoint.<id>.cache.time-to-live} does to the endpoints whose main read operation takes
 * the asker's {@code SecurityContext} (for {@code show-values}): {@code rediskitlock}, {@code rediskitleaderboard},
 * {@code rediskitrecentitems}. Spring Boot's configuration processor lists the property only for an endpoint whose
 * read operation takes no parameter, so it is not in their metadata; Actuator still binds it, without a warning, and
 * caches their answers, one per user (the cache's key holds the principal), as the upgrade notes in lock.md,
 * leaderboards.md and recent-items.md say. Read through Actuator's own operation invokers, as a request is.
 */
@ExtendWith(OutputCaptureExtension.class)
class EndpointCacheTimeToLiveTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class, LockAutoConfiguration.class,
				LockEndpointAutoConfiguration.class, RankAutoConfiguration.class, RankEndpointAutoConfiguration.class,
				RecentAutoConfiguration.class, RecentEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitlock,rediskitleaderboard,rediskitrecentitems",
				"management.endpoint.rediskitlock.show-values=always",
				"redis-kit.leaderboard.leaderboards.scores.zone=UTC", "redis-kit.recent-items.lists.viewed.capacity=5");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void aTimeToLiveStillBindsSilentlyAndCachesEachUsersAnswer(CapturedOutput output) {
		this.runner
			.withPropertyValues("management.endpoint.rediskitlock.cache.time-to-live=1h",
					"management.endpoint.rediskitleaderboard.cache.time-to-live=1h",
					"management.endpoint.rediskitrecentitems.cache.time-to-live=1h")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Object before = read(context, "rediskitlock", SecurityContext.NONE);
				try (Lease held = context.getBean(LockRegistry.class).getLock("orders:7").acquire(Duration.ZERO)) {
					// The answer read before the lock was taken, for the same (anonymous) asker.
					assertThat(read(context, "rediskitlock", SecurityContext.NONE)).isSameAs(before);
					assertThat(lockNames(before)).isEmpty();
					// Another user's answer is his own.
					assertThat(lockNames(read(context, "rediskitlock", user("OPS")))).containsExactly("orders:7");
				}
				for (String id : new String[] { "rediskitleaderboard", "rediskitrecentitems" }) {
					Object first = read(context, id, SecurityContext.NONE);
					seed(context);
					assertThat(read(context, id, SecurityContext.NONE)).as(id).isSameAs(first);
				}
			});
		assertThat(output).doesNotContain("time-to-live");
	}

	@Test
	void withoutATimeToLiveEveryReadIsFresh() {
		this.runner.run((context) -> {
			Object before = read(context, "rediskitlock", SecurityContext.NONE);
			try (Lease held = context.getBean(LockRegistry.class).getLock("orders:7").acquire(Duration.ZERO)) {
				assertThat(lockNames(read(context, "rediskitlock", SecurityContext.NONE))).containsExactly("orders:7");
			}
			assertThat(lockNames(before)).isEmpty();
			for (String id : new String[] { "rediskitleaderboard", "rediskitrecentitems" }) {
				Object first = read(context, id, SecurityContext.NONE);
				assertThat(read(context, id, SecurityContext.NONE)).as(id).isNotSameAs(first);
			}
		});
	}

	/** The endpoint's read operation without a selector, invoked as Actuator invokes it for a request. */
	private static Object read(ApplicationContext context, String id, SecurityContext asker) {
		WebOperation operation = context.getBean(WebEndpointsSupplier.class)
			.getEndpoints()
			.stream()
			.filter((endpoint) -> endpoint.getEndpointId().equals(EndpointId.of(id)))
			.flatMap((endpoint) -> endpoint.getOperations().stream())
			.filter((candidate) -> candidate.getType() == OperationType.READ
					&& !candidate.getRequestPredicate().getPath().contains("{"))
			.findFirst()
			.orElseThrow();
		return operation.invoke(new InvocationContext(asker, Map.of()));
	}

	private static List<String> lockNames(Object view) {
		return ((RedisLocksEndpoint.HeldLocksDescriptor) view).locks()
			.stream()
			.map(RedisLocksEndpoint.HeldLockDescriptor::name)
			.toList();
	}

	private static void seed(ApplicationContext context) {
		context.getBean(LeaderboardRegistry.class).get("scores").set("u-ada", 30);
		context.getBean(RecentItemsRegistry.class).get("viewed").view("u-ada", "clinic-42");
	}

}

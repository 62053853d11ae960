package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.List;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static io.rediskit.autoconfigure.Askers.user;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code management.endpoint.rediskitlock.show-values} and {@code .roles}, decided as the other endpoints that
 * return the application's values decide: the names given in code (a held lock's, a semaphore's, a latch's), often
 * built from what the application received, show only when the setting says so, to whom it says; groups, kinds,
 * tokens, counts, permits, leader roles and scheduled jobs (configured names) always show. Against a real server.
 */
class LockEndpointShowValuesTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				EndpointAutoConfiguration.class, LockAutoConfiguration.class, SemaphoreAutoConfiguration.class,
				LatchAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LockEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitlock", "redis-kit.lock.leader.roles=billing",
				"redis-kit.lock.leader.instance-name=node-1");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void byDefaultNamesAreHiddenEvenFromAnAdminAndTheirGroupsAndFiguresKept() {
		this.runner.run((context) -> held(context, () -> {
			assertThat(context.getBean(LockEndpointProperties.class).getShowValues()).isEqualTo(Show.NEVER);
			for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("ADMIN") }) {
				assertHidden(context, asker);
			}
		}));
	}

	@Test
	void alwaysShowsThemToAnyone() {
		this.runner.withPropertyValues("management.endpoint.rediskitlock.show-values=always")
			.run((context) -> held(context, () -> assertShown(context, SecurityContext.NONE)));
	}

	@Test
	void whenAuthorizedShowsThemOnlyToAUserInOneOfTheRoles() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitlock.show-values=when-authorized",
					"management.endpoint.rediskitlock.roles=OPS,ADMIN")
			.run((context) -> held(context, () -> {
				assertThat(context.getBean(LockEndpointProperties.class).getRoles()).containsExactly("OPS", "ADMIN");
				assertShown(context, user("ADMIN"));
				for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("VIEWER"), user() }) {
					assertHidden(context, asker);
				}
			}));
	}

	@Test
	void whenAuthorizedWithoutRolesShowsThemToAnyAuthenticatedUserOnly() {
		this.runner.withPropertyValues("management.endpoint.rediskitlock.show-values=when-authorized")
			.run((context) -> held(context, () -> {
				assertShown(context, user());
				assertHidden(context, SecurityContext.NONE);
			}));
	}

	@Test
	void anUnknownSettingFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("management.endpoint.rediskitlock.show-values=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("management.endpoint.rediskitlock.show-values"));
	}

	// Holds, while the check runs, a lock of a group ("orders:o-42"), a lock taken by its name alone ("invoice:7"),
	// two permits of a group's semaphore ("pool:tenant-9") and a latch ("batch-77"), and records a scheduled job.
	private static void held(AssertableApplicationContext context, Runnable check) throws Exception {
		assertThat(context).hasNotFailed();
		LockRegistry locks = context.getBean(LockRegistry.class);
		assertThat(context.getBean(LatchRegistry.class).getCountDownLatch("batch-77").trySetCount(2)).isTrue();
		ScheduledJobs.Job job = context.getBean(ScheduledJobs.class)
			.job("nightly-report", false, Duration.ZERO, Duration.ofMinutes(30));
		job.started();
		job.ended(ScheduledJobs.Outcome.RAN);
		try (Lease order = locks.getLock("orders", "o-42").acquire(Duration.ZERO);
				Lease invoice = locks.getLock("invoice:7").acquire(Duration.ZERO);
				Lease permits = context.getBean(SemaphoreRegistry.class)
					.getSemaphore("pool", "tenant-9", 3)
					.acquire(2, Duration.ZERO)) {
			check.run();
		}
	}

	// The leader election's own lock ("leader:billing", group "leader") comes and goes as it is elected.
	private static List<RedisLocksEndpoint.HeldLockDescriptor> seeded(RedisLocksEndpoint.HeldLocksDescriptor view) {
		return view.locks().stream().filter((lock) -> !"leader".equals(lock.group())).toList();
	}

	private static void assertHidden(ApplicationContext context, SecurityContext asker) {
		RedisLocksEndpoint.HeldLocksDescriptor view = context.getBean(RedisLocksEndpoint.class).heldLocks(asker);
		List<RedisLocksEndpoint.HeldLockDescriptor> locks = seeded(view);
		assertThat(locks).extracting(RedisLocksEndpoint.HeldLockDescriptor::name).containsOnlyNulls().hasSize(3);
		assertThat(locks).extracting((lock) -> lock.kind() + " " + lock.group())
			.containsExactly("single orders", "single null", "semaphore pool");
		assertThat(locks).allSatisfy((lock) -> {
			assertThat(lock.fencingToken()).isPositive();
			assertThat(lock.holdCount()).isPositive();
			assertThat(lock.owner()).isEqualTo("lease");
			assertThat(lock.leaseRemainingMillis()).isPositive();
		});
		assertThat(view.semaphores()).singleElement().satisfies((semaphore) -> {
			assertThat(semaphore.name()).isNull();
			assertThat(semaphore.group()).isEqualTo("pool");
			assertThat(semaphore.held()).isEqualTo(2);
			assertThat(semaphore.total()).isEqualTo(3);
		});
		assertThat(view.latches()).singleElement().satisfies((latch) -> {
			assertThat(latch.name()).isNull();
			assertThat(latch.count()).isEqualTo(2);
		});
		assertConfiguredNamesShown(view);
	}

	private static void assertShown(ApplicationContext context, SecurityContext asker) {
		RedisLocksEndpoint.HeldLocksDescriptor view = context.getBean(RedisLocksEndpoint.class).heldLocks(asker);
		assertThat(seeded(view)).extracting((lock) -> lock.kind() + " " + lock.name() + " " + lock.group())
			.containsExactly("single orders:o-42 orders", "single invoice:7 invoice:7", "semaphore pool:tenant-9 pool");
		assertThat(view.semaphores()).extracting(RedisLocksEndpoint.SemaphoreDescriptor::name)
			.containsExactly("pool:tenant-9");
		assertThat(view.latches()).extracting(RedisLocksEndpoint.LatchDescriptor::name).containsExactly("batch-77");
		assertConfiguredNamesShown(view);
	}

	private static void assertConfiguredNamesShown(RedisLocksEndpoint.HeldLocksDescriptor view) {
		assertThat(view.leaders()).extracting(RedisLocksEndpoint.LeaderDescriptor::role).containsExactly("billing");
		assertThat(view.jobs()).singleElement().satisfies((job) -> {
			assertThat(job.name()).isEqualTo("nightly-report");
			assertThat(job.lastOutcome()).isEqualTo("ran");
		});
	}

}

package io.rediskit.autoconfigure;


import io.rediskit.autoconfigure.rank.LeaderboardEndpointProperties;
import io.rediskit.autoconfigure.rank.RankAutoConfiguration;
import io.rediskit.autoconfigure.rank.RankEndpointAutoConfiguration;
import io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint;
import io.rediskit.autoconfigure.recent.RecentAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentEndpointAutoConfiguration;
import io.rediskit.autoconfigure.recent.RecentItemsEndpointProperties;
import io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.recent.RecentItemsRegistry;
import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static io.rediskit.autoconfigure.Askers.user;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code management.endpoint.rediskitleaderboard.show-values} and {@code management.endpoint.rediskitrecentitems
 * .show-values} (with {@code .roles}), decided as the queue's dead letters are: the leaderboard's top members show
 * their names and the recent-items lists their items (a person's history) only when the setting says so, to whom it
 * says; ranks, scores, views and counts always show. Against a real server.
 */
class ValuesEndpointShowValuesTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class,
				EndpointAutoConfiguration.class, RankAutoConfiguration.class, RankEndpointAutoConfiguration.class,
				RecentAutoConfiguration.class, RecentEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=" + redis.server().port(),
				"management.endpoints.web.exposure.include=rediskitleaderboard,rediskitrecentitems",
				"redis-kit.leaderboard.leaderboards.scores.zone=UTC", "redis-kit.recent-items.lists.viewed.capacity=5");

	@BeforeEach
	void clean() {
		redis.flushAll();
	}

	@Test
	void byDefaultMembersAndItemsAreHiddenEvenFromAnAdminAndTheirFiguresKept() {
		this.runner.run((context) -> {
			seed(context);
			assertThat(context.getBean(LeaderboardEndpointProperties.class).getShowValues()).isEqualTo(Show.NEVER);
			assertThat(context.getBean(RecentItemsEndpointProperties.class).getShowValues()).isEqualTo(Show.NEVER);
			for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("ADMIN") }) {
				assertHidden(context, asker);
			}
		});
	}

	@Test
	void alwaysShowsThemToAnyone() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitleaderboard.show-values=always",
					"management.endpoint.rediskitrecentitems.show-values=always")
			.run((context) -> {
				seed(context);
				assertShown(context, SecurityContext.NONE);
			});
	}

	@Test
	void whenAuthorizedShowsThemOnlyToAUserInOneOfTheRoles() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitleaderboard.show-values=when-authorized",
					"management.endpoint.rediskitleaderboard.roles=OPS,ADMIN",
					"management.endpoint.rediskitrecentitems.show-values=when-authorized",
					"management.endpoint.rediskitrecentitems.roles=OPS,ADMIN")
			.run((context) -> {
				seed(context);
				assertThat(context.getBean(LeaderboardEndpointProperties.class).getRoles()).containsExactly("OPS",
						"ADMIN");
				assertShown(context, user("ADMIN"));
				for (SecurityContext asker : new SecurityContext[] { SecurityContext.NONE, user("VIEWER"), user() }) {
					assertHidden(context, asker);
				}
			});
	}

	@Test
	void whenAuthorizedWithoutRolesShowsThemToAnyAuthenticatedUserOnly() {
		this.runner
			.withPropertyValues("management.endpoint.rediskitleaderboard.show-values=when-authorized",
					"management.endpoint.rediskitrecentitems.show-values=when-authorized")
			.run((context) -> {
				seed(context);
				assertShown(context, user());
				assertHidden(context, SecurityContext.NONE);
			});
	}

	@Test
	void eachEndpointHasItsOwnSetting() {
		this.runner.withPropertyValues("management.endpoint.rediskitleaderboard.show-values=always").run((context) -> {
			seed(context);
			assertThat(context.getBean(RedisLeaderboardEndpoint.class).leaderboards(SecurityContext.NONE).leaderboards())
				.singleElement()
				.satisfies((board) -> assertThat(board.top()).extracting((entry) -> entry.member())
					.containsExactly("u-ada", "u-bob"));
			assertThat(context.getBean(RedisRecentItemsEndpoint.class).user(SecurityContext.NONE, "viewed", "u-ada")
				.items()).isNull();
		});
	}

	@Test
	void anUnknownSettingFailsStartupNamingTheProperty() {
		for (String property : new String[] { "management.endpoint.rediskitleaderboard.show-values",
				"management.endpoint.rediskitrecentitems.show-values" }) {
			this.runner.withPropertyValues(property + "=sometimes")
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.hasStackTraceContaining(property));
		}
	}

	private static void seed(ApplicationContext context) {
		LeaderboardRegistry boards = context.getBean(LeaderboardRegistry.class);
		boards.get("scores").set("u-ada", 30);
		boards.get("scores").set("u-bob", 20);
		RecentItemsRegistry lists = context.getBean(RecentItemsRegistry.class);
		lists.get("viewed").view("u-ada", "clinic-42");
		lists.get("viewed").view("u-ada", "pharmacy-7");
	}

	private static void assertHidden(ApplicationContext context, SecurityContext asker) {
		RedisLeaderboardEndpoint boards = context.getBean(RedisLeaderboardEndpoint.class);
		assertThat(boards.leaderboards(asker).leaderboards()).singleElement().satisfies((board) -> {
			assertThat(board.size()).isEqualTo(2);
			assertThat(board.top()).extracting((entry) -> entry.member()).containsExactly(null, null);
			assertThat(board.top()).extracting((entry) -> entry.rank()).containsExactly(1L, 2L);
			assertThat(board.top()).extracting((entry) -> entry.score()).containsExactly(30.0, 20.0);
		});
		RedisLeaderboardEndpoint.MemberRankDescriptor rank = boards.member("scores", "u-bob");
		assertThat(rank.rank()).isEqualTo(2);
		RedisRecentItemsEndpoint lists = context.getBean(RedisRecentItemsEndpoint.class);
		assertThat(lists.lists(asker).lists()).singleElement().satisfies((list) -> {
			assertThat(list.capacity()).isEqualTo(5);
			assertThat(list.trending()).hasSize(2).allSatisfy((item) -> {
				assertThat(item.item()).isNull();
				assertThat(item.views()).isEqualTo(1);
			});
		});
		RedisRecentItemsEndpoint.UserItemsDescriptor user = lists.user(asker, "viewed", "u-ada");
		assertThat(user.items()).isNull();
		assertThat(user.count()).isEqualTo(2);
	}

	private static void assertShown(ApplicationContext context, SecurityContext asker) {
		assertThat(context.getBean(RedisLeaderboardEndpoint.class).leaderboards(asker).leaderboards())
			.singleElement()
			.satisfies((board) -> {
				assertThat(board.top()).extracting((entry) -> entry.member()).containsExactly("u-ada", "u-bob");
				assertThat(board.top()).extracting((entry) -> entry.score()).containsExactly(30.0, 20.0);
			});
		RedisRecentItemsEndpoint lists = context.getBean(RedisRecentItemsEndpoint.class);
		assertThat(lists.lists(asker).lists()).singleElement()
			.satisfies((list) -> assertThat(list.trending()).extracting((item) -> item.item())
				.containsExactlyInAnyOrder("clinic-42", "pharmacy-7"));
		RedisRecentItemsEndpoint.UserItemsDescriptor user = lists.user(asker, "viewed", "u-ada");
		assertThat(user.items()).containsExactly("pharmacy-7", "clinic-42");
		assertThat(user.count()).isEqualTo(2);
	}

}

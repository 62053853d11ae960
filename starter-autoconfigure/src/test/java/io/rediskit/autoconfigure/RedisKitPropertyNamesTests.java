package io.rediskit.autoconfigure;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A property under {@code redis-kit} that belongs to no group (a misspelt group or root property) fails startup
 * naming it; the properties that exist start, and the list of groups is the configuration metadata's.
 */
class RedisKitPropertyNamesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RedisKitAutoConfiguration.class));

	@Test
	void aMisspeltGroupOrRootPropertyFailsStartupNamingIt() {
		this.runner.withPropertyValues("redis-kit.rate-limits.limiters.login.limit=5", "redis-kit.outage.enable=false")
			.run((context) -> {
				assertThat(context).getFailure().isInstanceOf(InvalidPropertiesException.class);
				InvalidPropertiesException failure = (InvalidPropertiesException) context.getStartupFailure();
				assertThat(failure.getViolations()).extracting(InvalidPropertiesException.Violation::property)
					.containsExactlyInAnyOrder("redis-kit.rate-limits.limiters.login.limit", "redis-kit.outage.enable");
				assertThat(failure.getViolations().get(0).reason()).contains("belongs to no redis-kit group")
					.contains("the groups bloom, cache, console, counter").contains("rate-limit, recent-items");
			});
	}

	@Test
	void thePropertiesThatExistStart() {
		this.runner.withPropertyValues("redis-kit.key-prefix=app:", "redis-kit.outage.enabled=true",
				"redis-kit.outage.probe-interval=2s", "redis-kit.lock.watchdog-timeout=10s",
				"redis-kit.rate-limit.limiters.login.limit=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theGroupsAreTheMetadatas() throws Exception {
		Map<?, ?> metadata;
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			metadata = JsonMapper.builder().build().readValue(in, Map.class);
		}
		Set<String> groups = new TreeSet<>();
		Set<String> own = new TreeSet<>();
		for (Object property : (List<?>) metadata.get("properties")) {
			String name = (String) ((Map<?, ?>) property).get("name");
			if (!name.startsWith("redis-kit.")) {
				continue;
			}
			String[] parts = name.substring("redis-kit.".length()).split("\\.", 2);
			if (name.startsWith("redis-kit.outage.") || parts.length == 1) {
				own.add(name.substring("redis-kit.".length()));
			}
			else {
				groups.add(parts[0]);
			}
		}
		assertThat(groups).as("add a new group to RedisKitPropertyNames.GROUPS")
			.containsExactlyInAnyOrderElementsOf(RedisKitPropertyNames.GROUPS);
		assertThat(own).containsExactlyInAnyOrderElementsOf(RedisKitPropertyNames.OWN);
	}

}

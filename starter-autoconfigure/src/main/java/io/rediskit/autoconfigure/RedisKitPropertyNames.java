package io.rediskit.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Fails startup on a property under {@code redis-kit} that belongs to no group, such as
 * {@code redis-kit.rate-limits.limiters.login.limit} or {@code redis-kit.outage.enable}. Each area binds its own
 * group and refuses names it does not know, but a misspelt group name reaches none of them and was ignored without
 * a word: the application started with none of that configuration. Reported like a binding failure: the
 * property, its value, where it was set, and the names that exist.
 * <p>
 * System properties and environment variables are not checked: a JVM may carry {@code -D} switches meant for
 * something else (the build's own {@code -Dredis-kit.docs.write=true}), and environment variables map to names
 * only loosely.
 */
final class RedisKitPropertyNames {

	/** The groups under {@code redis-kit}, one per area; checked against the configuration metadata by a test. */
	static final Set<String> GROUPS = Set.of("bloom", "cache", "console", "counter", "geo", "id", "keys",
			"leaderboard", "lock", "queue", "rate-limit", "recent-items");

	/** The properties of {@link RedisKitProperties} itself, besides the groups. */
	static final Set<String> OWN = Set.of("key-prefix", "outage.enabled", "outage.probe-interval");

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("redis-kit");

	private RedisKitPropertyNames() {
	}

	/**
	 * @param environment the application's environment
	 * @throws InvalidPropertiesException naming each property under {@code redis-kit} that belongs nowhere
	 */
	static void check(Environment environment) {
		Set<String> unknown = new TreeSet<>();
		List<Violation> violations = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable) || fromTheProcess(source)) {
				continue;
			}
			iterable.filter(ROOT::isAncestorOf).forEach((name) -> {
				String group = name.getElement(1, ConfigurationPropertyName.Form.DASHED);
				String own = name.subName(1).toString();
				if (GROUPS.contains(group) || OWN.contains(own) || !unknown.add(name.toString())) {
					return;
				}
				ConfigurationProperty property = source.getConfigurationProperty(name);
				String value = (property != null) ? String.valueOf(property.getValue()) : "";
				violations.add(new Violation(name.toString(), value, name + " belongs to no redis-kit group: "
						+ "redis-kit has the properties " + String.join(", ", new TreeSet<>(OWN))
						+ " and the groups " + String.join(", ", new TreeSet<>(GROUPS))));
			});
		}
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
	}

	private static boolean fromTheProcess(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> underlying
				&& (StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(underlying.getName())
						|| StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(underlying.getName()));
	}

}

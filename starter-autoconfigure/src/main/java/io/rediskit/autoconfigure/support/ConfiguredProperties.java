package io.rediskit.autoconfigure.support;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * What the environment holds, as written, for the checks that binding cannot make: whether a setting was set at
 * all (its default is not the same as the value written), and the value as its source gave it (a number in YAML
 * where a name is expected, which Spring's converters read as an enum's position).
 */
public final class ConfiguredProperties {

	private ConfiguredProperties() {
	}

	/**
	 * The properties set under a root whose last element is a setting, such as every
	 * {@code redis-kit.queue.queues.<name>.default-priority}; where several sources set one, the one that wins.
	 * @param environment the application's environment
	 * @param root the property under which to look, such as {@code redis-kit.queue.queues}
	 * @param setting the last element, in its dashed form, such as {@code default-priority}
	 * @return the properties, each with its value as written and its origin
	 */
	public static List<ConfigurationProperty> find(Environment environment, String root, String setting) {
		ConfigurationPropertyName under = ConfigurationPropertyName.of(root);
		Set<ConfigurationPropertyName> names = new LinkedHashSet<>();
		Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
		for (ConfigurationPropertySource source : sources) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter(under::isAncestorOf)
					.stream()
					.filter((name) -> setting.equals(name.getLastElement(ConfigurationPropertyName.Form.DASHED)))
					.forEach(names::add);
			}
		}
		List<ConfigurationProperty> found = new ArrayList<>();
		for (ConfigurationPropertyName name : names) {
			for (ConfigurationPropertySource source : sources) {
				ConfigurationProperty property = source.getConfigurationProperty(name);
				if (property != null) {
					found.add(property);
					break;
				}
			}
		}
		return found;
	}

}

package io.rediskit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.ConfigurationPropertiesBean;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Fails startup on a duration under {@code redis-kit} written as a bare number, such as {@code period: 15} or
 * {@code watchdog-timeout: 30}. Spring reads a number without a unit as milliseconds, so the application started
 * with a limiter whose window is 15 ms (no limit at all) or a lock lease of 30 ms, without a word. Zero is the same
 * in every unit and passes. Reported like a binding failure, with the property and where it was set.
 * <p>
 * The duration properties are found from the types of redis-kit's {@code @ConfigurationProperties} beans, through
 * maps and lists, so every group and entry is covered without a list to keep. System properties and environment
 * variables are not checked, as in {@link RedisKitPropertyNames}.
 */
final class RedisKitDurationUnits {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("redis-kit");

	private static final Pattern BARE_NUMBER = Pattern.compile("\\s*[-+]?\\d+\\s*");

	private static final Pattern ZERO = Pattern.compile("\\s*[-+]?0+\\s*");

	private RedisKitDurationUnits() {
	}

	/**
	 * @param context the application's context, its {@code @ConfigurationProperties} beans created
	 * @throws InvalidPropertiesException naming each duration under {@code redis-kit} written without a unit
	 */
	static void check(ApplicationContext context) {
		List<ConfigurationPropertiesBean> beans = new ArrayList<>();
		for (ConfigurationPropertiesBean bean : ConfigurationPropertiesBean.getAll(context).values()) {
			String prefix = bean.getAnnotation().prefix();
			if (!prefix.isEmpty() && (ROOT.equals(ConfigurationPropertyName.of(prefix))
					|| ROOT.isAncestorOf(ConfigurationPropertyName.of(prefix)))) {
				beans.add(bean);
			}
		}
		// The deepest prefix first: redis-kit.rate-limit.* belongs to its group's bean, not to redis-kit's own.
		beans.sort(Comparator.comparingInt(
				(ConfigurationPropertiesBean bean) -> ConfigurationPropertyName.of(bean.getAnnotation().prefix())
					.getNumberOfElements())
			.reversed());
		Set<String> seen = new TreeSet<>();
		List<Violation> violations = new ArrayList<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
			if (!(source instanceof IterableConfigurationPropertySource iterable) || fromTheProcess(source)) {
				continue;
			}
			iterable.filter(ROOT::isAncestorOf).forEach((name) -> {
				if (!seen.add(name.toString())) {
					return; // a source of lower precedence: the first one's value is the one bound
				}
				ConfigurationProperty property = source.getConfigurationProperty(name);
				Object value = (property != null) ? property.getValue() : null;
				String text = (value != null) ? value.toString() : "";
				if (!BARE_NUMBER.matcher(text).matches() || ZERO.matcher(text).matches()
						|| !isDuration(beans, name)) {
					return;
				}
				violations.add(new Violation(name.toString(), text, name + " is a duration written without a unit,"
						+ " which Spring reads as milliseconds: write its unit, such as 500ms, 30s, 15m, 1h or 7d"
						+ " (or an ISO-8601 duration such as PT15M)"));
			});
		}
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
	}

	private static boolean isDuration(List<ConfigurationPropertiesBean> beans, ConfigurationPropertyName name) {
		for (ConfigurationPropertiesBean bean : beans) {
			ConfigurationPropertyName prefix = ConfigurationPropertyName.of(bean.getAnnotation().prefix());
			if (prefix.isAncestorOf(name)) {
				ResolvableType type = typeOf(bean.asBindTarget().getType(), name, prefix.getNumberOfElements());
				return type != null && Duration.class.equals(type.resolve());
			}
		}
		return false;
	}

	/** @return the type the name binds to, walked from the bean's type; {@code null} where it binds to nothing */
	private static @Nullable ResolvableType typeOf(ResolvableType type, ConfigurationPropertyName name, int from) {
		ResolvableType current = type;
		for (int i = from; i < name.getNumberOfElements(); i++) {
			Class<?> raw = current.resolve();
			if (raw == null) {
				return null;
			}
			if (Map.class.isAssignableFrom(raw)) {
				current = current.asMap().getGeneric(1); // this element is the entry's key
			}
			else if (Collection.class.isAssignableFrom(raw)) {
				current = current.asCollection().getGeneric(0); // this element is the index
			}
			else if (raw.isArray()) {
				current = current.getComponentType();
			}
			else {
				current = property(current, raw, name.getElement(i, ConfigurationPropertyName.Form.DASHED));
				if (current == null) {
					return null;
				}
			}
		}
		return current;
	}

	private static @Nullable ResolvableType property(ResolvableType owner, Class<?> raw, String dashed) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(raw)) {
			if (descriptor.getReadMethod() != null && dashed(descriptor.getName()).equals(dashed)) {
				return ResolvableType.forMethodReturnType(descriptor.getReadMethod(), raw);
			}
		}
		return null;
	}

	private static String dashed(String camel) {
		StringBuilder dashed = new StringBuilder(camel.length() + 4);
		for (char c : camel.toCharArray()) {
			if (Character.isUpperCase(c)) {
				dashed.append('-').append(Character.toLowerCase(c));
			}
			else {
				dashed.append(c);
			}
		}
		return dashed.toString();
	}

	private static boolean fromTheProcess(ConfigurationPropertySource source) {
		return source.getUnderlyingSource() instanceof PropertySource<?> underlying
				&& (StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(underlying.getName())
						|| StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME.equals(underlying.getName()));
	}

}

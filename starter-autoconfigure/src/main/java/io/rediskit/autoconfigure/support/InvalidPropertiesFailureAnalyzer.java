package io.rediskit.autoconfigure.support;

import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/**
 * Reports an {@link InvalidPropertiesException} as Spring Boot reports a property that fails validation: an
 * "APPLICATION FAILED TO START" banner with each property, its value, its origin (file and line, looked up in
 * the environment) and the reason, instead of a stack trace.
 */
class InvalidPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<InvalidPropertiesException> {

	private final @Nullable Environment environment;

	/**
	 * @param environment where the origins of the properties are looked up; {@code null} when the failure came
	 * before there was one
	 */
	InvalidPropertiesFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidPropertiesException cause) {
		int count = cause.getViolations().size();
		StringBuilder description = new StringBuilder("redis-kit found " + count + " invalid "
				+ ((count == 1) ? "property" : "properties") + ":\n");
		for (Violation violation : cause.getViolations()) {
			// The value as written where the environment has it (1, not the 1.0 it was bound as), and where.
			ConfigurationProperty written = written(violation.property());
			description.append("\n    Property: ").append(violation.property());
			ConfigurationPropertySource listSource = (written != null) ? listSourceOtherThan(violation.property(), written)
					: null;
			if (written != null && listSource != null) {
				// Written where the list was not bound from: its value and origin are not what was checked.
				description.append("\n    Reason: ").append(violation.reason());
				description.append("\n    Not bound: it is set in ").append(where(written.getSource(), written.getOrigin()))
					.append(", but the list ").append(listOf(violation.property()))
					.append(" was bound from ").append(where(listSource, null))
					.append(" alone: a list set in a property source that wins replaces the whole list of the"
							+ " others, so give every property of its elements there\n");
				continue;
			}
			if (violation.value() != null) {
				description.append("\n    Value: \"")
					.append((written != null && written.getValue() != null) ? written.getValue() : violation.value())
					.append('"');
			}
			Origin origin = (written != null) ? written.getOrigin() : null;
			if (origin != null) {
				description.append("\n    Origin: ").append(origin);
			}
			description.append("\n    Reason: ").append(violation.reason()).append('\n');
		}
		return new FailureAnalysis(description.toString(),
				"Update your application's configuration: each reason says what its property allows.", cause);
	}

	/**
	 * Spring Boot binds a list from the first property source that has any of its elements, never merging the
	 * elements of several sources.
	 * @return the source the list holding the property was bound from, when it is not the one the property was
	 * written in; {@code null} when the property is no list element's or was bound from where it was written
	 */
	private @Nullable ConfigurationPropertySource listSourceOtherThan(String property, ConfigurationProperty written) {
		ConfigurationPropertyName list = ConfigurationPropertyName.ofIfValid(listOf(property));
		if (this.environment == null || list == null || list.equals(ConfigurationPropertyName.ofIfValid(property))) {
			return null;
		}
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (source.containsDescendantOf(list) == ConfigurationPropertyState.PRESENT) {
				return (source == written.getSource()) ? null : source;
			}
		}
		return null;
	}

	// The property up to its last index: redis-kit.rate-limit.web.rules for redis-kit.rate-limit.web.rules[0].key.
	private static String listOf(String property) {
		int index = property.lastIndexOf('[');
		return (index > 0) ? property.substring(0, index) : property;
	}

	private static String where(@Nullable ConfigurationPropertySource source, @Nullable Origin origin) {
		if (origin != null) {
			return origin.toString();
		}
		return (source != null && source.getUnderlyingSource() instanceof PropertySource<?> underlying)
				? "property source \"" + underlying.getName() + "\"" : "another property source";
	}

	private @Nullable ConfigurationProperty written(String property) {
		ConfigurationPropertyName name = ConfigurationPropertyName.ofIfValid(property);
		if (this.environment == null || name == null) {
			return null;
		}
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			ConfigurationProperty bound = source.getConfigurationProperty(name);
			if (bound != null) {
				return bound;
			}
		}
		return null;
	}

}

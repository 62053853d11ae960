package io.rediskit.autoconfigure.support;

import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.Environment;

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

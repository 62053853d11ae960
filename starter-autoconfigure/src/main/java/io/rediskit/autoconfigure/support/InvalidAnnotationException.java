package io.rediskit.autoconfigure.support;

import java.util.List;

/**
 * Methods carry a redis-kit annotation that cannot work (an unknown limiter, a key expression that names no
 * parameter, a duration that does not parse, a missing fallback): thrown while the application starts, before
 * any such method runs, and reported by {@link InvalidAnnotationFailureAnalyzer}.
 */
public class InvalidAnnotationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String annotation;

	private final List<String> failures;

	/**
	 * @param annotation the annotation's simple name, such as {@code RateLimited}
	 * @param failures one line per method at fault, naming bean, class, method and attribute
	 */
	public InvalidAnnotationException(String annotation, List<String> failures) {
		super("Invalid @" + annotation + ((failures.size() == 1) ? " annotation" : " annotations") + ":\n - "
				+ String.join("\n - ", failures));
		this.annotation = annotation;
		this.failures = List.copyOf(failures);
	}

	/** @return the annotation's simple name */
	public String getAnnotation() {
		return this.annotation;
	}

	/** @return one line per method at fault */
	public List<String> getFailures() {
		return this.failures;
	}

}

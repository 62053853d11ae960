package io.rediskit.autoconfigure.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Methods carry redis-kit annotations that cannot work (an unknown limiter, a key expression that names no
 * parameter, a duration that does not parse, a missing fallback, a listener method without a payload): thrown
 * while the application starts, before any such method runs, listing every method at fault of every annotation
 * kind, and reported by {@link InvalidAnnotationFailureAnalyzer}.
 */
public class InvalidAnnotationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final Map<String, List<String>> failures;

	/**
	 * @param annotation the annotation's simple name, such as {@code RateLimited}
	 * @param failures one line per method at fault, naming bean, class, method and attribute
	 */
	public InvalidAnnotationException(String annotation, List<String> failures) {
		this(Map.of(annotation, failures));
	}

	/**
	 * @param failures by annotation simple name, in the order to report them: one line per method at fault,
	 * naming bean, class, method and attribute
	 */
	public InvalidAnnotationException(Map<String, List<String>> failures) {
		super(message(failures));
		Map<String, List<String>> copy = new LinkedHashMap<>();
		failures.forEach((annotation, lines) -> copy.put(annotation, List.copyOf(lines)));
		this.failures = copy;
	}

	private static String message(Map<String, List<String>> failures) {
		StringBuilder message = new StringBuilder();
		failures.forEach((annotation, lines) -> message.append((message.length() > 0) ? "\n" : "")
			.append("Invalid @")
			.append(annotation)
			.append((lines.size() == 1) ? " annotation" : " annotations")
			.append(":\n - ")
			.append(String.join("\n - ", lines)));
		return message.toString();
	}

	/** @return the simple names of the annotations at fault, such as {@code RateLimited}, in report order */
	public List<String> getAnnotations() {
		return List.copyOf(this.failures.keySet());
	}

	/** @return one line per method at fault, of every annotation */
	public List<String> getFailures() {
		List<String> all = new ArrayList<>();
		this.failures.values().forEach(all::addAll);
		return all;
	}

	/**
	 * @param annotation an annotation's simple name
	 * @return one line per method at fault with that annotation; empty if none
	 */
	public List<String> getFailures(String annotation) {
		return this.failures.getOrDefault(annotation, List.of());
	}

}

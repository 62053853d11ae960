package io.rediskit.autoconfigure.support;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.Expiry;
import io.rediskit.support.Names;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidAnnotationException} as Spring Boot reports bad configuration: an "APPLICATION
 * FAILED TO START" banner listing each method at fault, of every annotation kind, and what to do about the kinds
 * found, instead of a stack trace.
 */
class InvalidAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidAnnotationException cause) {
		List<String> annotations = cause.getAnnotations();
		int count = cause.getFailures().size();
		StringBuilder description = new StringBuilder("redis-kit found " + count + " invalid ");
		if (annotations.size() == 1) {
			description.append('@').append(annotations.get(0)).append((count == 1) ? " annotation:\n" : " annotations:\n");
			description.append("\n - ").append(String.join("\n - ", cause.getFailures())).append('\n');
		}
		else {
			description.append("annotations:\n");
			for (String annotation : annotations) {
				List<String> failures = cause.getFailures(annotation);
				description.append("\n@").append(annotation).append(" (").append(failures.size()).append("):\n - ");
				description.append(String.join("\n - ", failures)).append('\n');
			}
		}
		return new FailureAnalysis(description.toString(), action(annotations), cause);
	}

	private static String action(List<String> annotations) {
		List<String> advice = new ArrayList<>();
		advice.add("Correct the attributes named above.");
		if (annotations.contains("DistributedLock") || annotations.contains("RateLimited")) {
			advice.add("Key expressions are SpEL over the method's parameters (#name needs the -parameters compiler"
					+ " flag; #p0 and #a0 always work).");
		}
		if (annotations.contains("DistributedLock")) {
			advice.add("Durations are such as \"2s\", \"500ms\" or \"PT2S\", at most " + Expiry.MAX.toDays()
					+ " days.");
		}
		if (annotations.contains("RateLimited")) {
			advice.add("A limiter must be configured under redis-kit.rate-limit.limiters.<name> or created while the"
					+ " application starts; names are " + Names.RULE + ", with no '.'.");
		}
		if (annotations.contains("QueueListener")) {
			advice.add("A @QueueListener method takes one parameter, the payload type or QueueMessage<T> (and"
					+ " optionally a second, Map<String, String>, the message's headers), its concurrency is a number from 1 to 1000, and its queue must be configured under"
					+ " redis-kit.queue.queues or created while the application starts.");
		}
		return String.join(" ", advice);
	}

}

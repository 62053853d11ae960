package io.rediskit.autoconfigure.support;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an {@link InvalidAnnotationException} as Spring Boot reports bad configuration: an "APPLICATION
 * FAILED TO START" banner listing each method at fault and what to do, instead of a stack trace.
 */
class InvalidAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidAnnotationException cause) {
		String description = "redis-kit found " + cause.getFailures().size() + " invalid @" + cause.getAnnotation()
				+ ((cause.getFailures().size() == 1) ? " annotation" : " annotations") + ":\n\n - "
				+ String.join("\n - ", cause.getFailures()) + "\n";
		String action = "Correct the attributes named above. Key expressions are SpEL over the method's parameters"
				+ " (#name needs the -parameters compiler flag; #p0 and #a0 always work), durations are such as"
				+ " \"2s\", \"500ms\" or \"PT2S\", and limiter names must be configured under"
				+ " redis-kit.rate-limit.limiters or created while the application starts. A @QueueListener method"
				+ " takes one parameter, the payload type or QueueMessage<T>, its concurrency is a number from 1 to 1000,"
				+ " and its queue must be configured under redis-kit.queue.queues or created while the application"
				+ " starts.";
		return new FailureAnalysis(description, action, cause);
	}

}

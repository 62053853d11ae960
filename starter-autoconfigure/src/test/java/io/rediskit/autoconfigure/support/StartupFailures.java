package io.rediskit.autoconfigure.support;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure analysis a user sees when a context of an {@code ApplicationContextRunner} fails to start: redis-kit's
 * analyzers in the order Spring Boot asks them. A failed context has no environment to look origins up in (and the
 * runner's properties have none): tests of the {@code Origin} line start a {@code SpringApplication} from a file.
 */
public final class StartupFailures {

	private StartupFailures() {
	}

	/**
	 * @param context a context that failed to start
	 * @return the analysis of its failure by redis-kit's analyzers; fails the test when none answers
	 */
	public static FailureAnalysis analyze(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable failure = context.getStartupFailure();
		List<AbstractFailureAnalyzer<?>> analyzers = List.of(new PropertiesBindFailureAnalyzer(),
				new InvalidPropertiesFailureAnalyzer(null), new InvalidAnnotationFailureAnalyzer());
		for (AbstractFailureAnalyzer<?> analyzer : analyzers) {
			@Nullable FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No redis-kit failure analysis of " + failure, failure);
	}

}

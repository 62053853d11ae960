package io.rediskit.testsupport;

import java.util.Optional;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Puts the run of a parameterized class and the servers' engine ({@code [2] cluster of Valkey 8.0.1}) in front of
 * each failure of its tests. Surefire's reports name a test by class and method only, so without it three runs of
 * a contract suite fail under one name and the report would not say on which deployment or engine. The original
 * failure stays the cause; aborted tests (assumptions) pass through untouched.
 */
public final class FailuresNameTheRun implements TestExecutionExceptionHandler,
		LifecycleMethodExecutionExceptionHandler {

	private static final String INVOCATION = "class-template-invocation";

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
		throw named(context, failure);
	}

	@Override
	public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable failure)
			throws Throwable {
		throw named(context, failure);
	}

	@Override
	public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable failure)
			throws Throwable {
		throw named(context, failure);
	}

	private static Throwable named(ExtensionContext context, Throwable failure) {
		if (failure instanceof TestAbortedException) {
			return failure;
		}
		RedisServerBinary servers = RedisServerBinary.located();
		String engine = (servers != null) ? " of " + servers.nameAndVersion() : "";
		return run(context).<Throwable>map((run) -> new AssertionError("On " + run + engine + ": " + failure, failure))
			.orElse(failure);
	}

	private static Optional<String> run(ExtensionContext context) {
		for (Optional<ExtensionContext> current = Optional.of(context); current.isPresent(); current = current.get()
			.getParent()) {
			if (current.get().getUniqueId().endsWith("]") && lastSegment(current.get()).startsWith(INVOCATION)) {
				return Optional.of(current.get().getDisplayName());
			}
		}
		return Optional.empty();
	}

	private static String lastSegment(ExtensionContext context) {
		String id = context.getUniqueId();
		return id.substring(id.lastIndexOf("/[") + 2);
	}

}

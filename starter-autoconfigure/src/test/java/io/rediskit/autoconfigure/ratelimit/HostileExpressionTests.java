package io.rediskit.autoconfigure.ratelimit;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Hostile key expressions, run against every place redis-kit evaluates a developer's expression: the key of an
 * annotation ({@link MethodKeyEvaluator}, behind {@code @DistributedLock}, {@code @DistributedSemaphore},
 * {@code @RateLimited}) and the key of a rate-limit route rule ({@link RequestKey}). What the check can see (a type,
 * bean or constructor reference) is refused before the first call; what only evaluation reaches (a method of
 * {@link Class} through {@code getClass()}) fails the call, and nothing hostile runs either way.
 */
class HostileExpressionTests {

	/** Set by {@link Target#trap()}; a hostile expression that got through would call it. */
	static final AtomicBoolean trapped = new AtomicBoolean();

	@ParameterizedTest
	@ValueSource(strings = { "T(java.lang.Runtime).getRuntime().exec('id')",
			"T(io.rediskit.autoconfigure.ratelimit.HostileExpressionTests).trapped.set(true)", "@someBean.run()",
			"new java.io.File('/').delete()", "new io.rediskit.autoconfigure.ratelimit.HostileExpressionTests$Target()" })
	void whatTheCheckCanSeeIsRefusedInAnAnnotationKeyAndARuleKey(String hostile) throws Exception {
		Method method = Target.class.getDeclaredMethod("call", String.class);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new MethodKeyEvaluator().check(hostile, method, "@DistributedLock(name = \"x\")"))
			.withMessageContaining("which key expressions do not offer");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new MethodKeyEvaluator().evaluate(hostile, method, new Object[] { "a" },
					"@DistributedLock(name = \"x\")"));
		String ruleKey = "#request.ip + " + hostile;
		assertThatIllegalArgumentException().isThrownBy(() -> RequestKey.parse(ruleKey))
			.withMessageContaining("which key expressions do not offer");
		assertThat(trapped).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { ".getClass().forName('java.lang.Runtime')", ".getClass().getClassLoader()",
			".getClass().getDeclaredMethods()" })
	void whatOnlyEvaluationReachesFailsTheCallAndRunsNothing(String hostileTail) throws Exception {
		Method method = Target.class.getDeclaredMethod("call", String.class);
		String annotationKey = "#p0" + hostileTail;
		MethodKeyEvaluator evaluator = new MethodKeyEvaluator();
		evaluator.check(annotationKey, method, "@RateLimited(\"x\")");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> evaluator.evaluate(annotationKey, method, new Object[] { "a" }, "@RateLimited(\"x\")"));
		RequestKey.Spel rule = (RequestKey.Spel) RequestKey.parse("#request" + hostileTail);
		assertThat(rule.evaluate(new RuleRequest("GET", "/", "10.0.0.1", (name) -> null, (name) -> null)))
			.isEqualTo(RequestKey.MISSING);
		assertThat(trapped).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "#{T(java.lang.Runtime).getRuntime().exit(1)}", "${user.home}",
			"T(java.io.File).listRoots()" })
	void aValueThatLooksLikeAnExpressionStaysText(String value) throws Exception {
		Method method = Target.class.getDeclaredMethod("call", String.class);
		assertThat(new MethodKeyEvaluator().evaluate("#p0", method, new Object[] { value }, "@DistributedLock(\"x\")"))
			.isEqualTo(value);
		RequestKey.Spel rule = (RequestKey.Spel) RequestKey.parse("#request.header('X-Tenant')");
		assertThat(rule.evaluate(new RuleRequest("GET", "/", "10.0.0.1", (name) -> value, (name) -> null)))
			.isEqualTo(value);
		assertThat(trapped).isFalse();
	}

	static final class Target {

		Target() {
			trapped.set(true);
		}

		String call(String value) {
			return value;
		}

		static void trap() {
			trapped.set(true);
		}

	}

}

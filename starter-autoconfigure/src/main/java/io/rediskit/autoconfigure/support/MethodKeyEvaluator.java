package io.rediskit.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * Evaluates the key expressions of redis-kit annotations against a method's arguments.
 * <p>
 * The expression is the developer's; the arguments are data. Evaluation uses a read-only
 * {@link SimpleEvaluationContext}: properties, getters and instance methods of the arguments, but no type
 * references ({@code T(...)}), bean references or constructors. The value is turned into a string once and
 * never evaluated again, so user input such as <code>#{...}</code> stays text. Parameters are visible by name
 * (compile with {@code -parameters}) and as {@code #p0}/{@code #a0}. Parsed expressions are cached per
 * method, which bounds the cache by the annotated methods.
 */
public final class MethodKeyEvaluator {

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<CacheKey, Expression> expressions = new ConcurrentHashMap<>();

	/**
	 * Evaluates a key expression.
	 * @param expression the SpEL expression, such as {@code #order.id}
	 * @param method the annotated method
	 * @param arguments the call's arguments
	 * @param annotation describes the annotation, for error messages, such as
	 * {@code @DistributedLock(name = "orders")}
	 * @return the key as text
	 * @throws IllegalArgumentException if the expression does not parse, fails or yields {@code null}
	 */
	public String evaluate(String expression, Method method, @Nullable Object[] arguments, String annotation) {
		Expression parsed = this.expressions.computeIfAbsent(new CacheKey(method, expression),
				(key) -> parse(expression, method, annotation));
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
		String[] names = this.parameterNames.getParameterNames(method);
		for (int i = 0; i < arguments.length; i++) {
			context.setVariable("p" + i, arguments[i]);
			context.setVariable("a" + i, arguments[i]);
			if (names != null && i < names.length) {
				context.setVariable(names[i], arguments[i]);
			}
		}
		Object value;
		try {
			value = parsed.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IllegalArgumentException("Key expression '" + expression + "' of " + annotation + " on "
					+ describe(method) + " failed: " + ex.getMessage(), ex);
		}
		if (value == null) {
			throw new IllegalArgumentException("Key expression '" + expression + "' of " + annotation + " on "
					+ describe(method) + " evaluated to null");
		}
		return value.toString();
	}

	private Expression parse(String expression, Method method, String annotation) {
		try {
			return this.parser.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("Key expression '" + expression + "' of " + annotation + " on "
					+ describe(method) + " does not parse: " + ex.getMessage(), ex);
		}
	}

	static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName();
	}

	private record CacheKey(Method method, String expression) {
	}

}

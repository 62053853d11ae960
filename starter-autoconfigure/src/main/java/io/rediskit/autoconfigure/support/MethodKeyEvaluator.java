package io.rediskit.autoconfigure.support;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * Evaluates the key expressions of redis-kit annotations against a method's arguments.
 * <p>
 * The expression is the developer's; the arguments are data, read as {@link SafeSpel} allows (properties, getters
 * and instance methods; no type, bean or constructor references). Parameters are visible as
 * {@code #p0}/{@code #a0}, always, and by name when the class was compiled with {@code -parameters}.
 * <p>
 * {@link #check} finds at startup what would fail every call: an expression that does not parse, uses what the
 * context does not offer, or names a variable that is not a parameter. What depends on the arguments (a
 * {@code null} value, a method that throws) fails the call with {@link IllegalArgumentException}. Parsed
 * expressions are cached per method, which bounds the cache by the annotated methods.
 */
public final class MethodKeyEvaluator {

	private static final Set<String> BUILT_IN_VARIABLES = Set.of("#this", "#root");

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<CacheKey, Expression> expressions = new ConcurrentHashMap<>();

	/**
	 * Checks a key expression against the method's parameters without evaluating it.
	 * @param expression the SpEL expression, such as {@code #order.id}
	 * @param method the annotated method, as declared on the target class
	 * @param annotation describes the annotation, for error messages, such as
	 * {@code @DistributedLock(name = "orders")}
	 * @throws IllegalArgumentException naming the annotation, the method and the {@code key} attribute if the
	 * expression does not parse, uses a type, bean or constructor reference, or names a variable that is not a
	 * parameter (saying so when parameter names were not compiled in)
	 */
	public void check(String expression, Method method, String annotation) {
		SafeSpel.Inspection inspection = SafeSpel.inspect(parsed(expression, method, annotation));
		String unsupported = inspection.unsupported();
		if (unsupported != null) {
			throw new IllegalArgumentException(prefix(expression, annotation, method) + " uses " + unsupported
					+ ", which key expressions do not offer: refer to the parameters only");
		}
		String[] names = this.parameterNames.getParameterNames(method);
		int count = method.getParameterCount();
		for (String variable : inspection.variables()) {
			if (BUILT_IN_VARIABLES.contains(variable) || isPositional(variable, count)
					|| (names != null && Arrays.asList(names).contains(variable.substring(1)))) {
				continue;
			}
			String positions = (count == 0) ? "the method has no parameters"
					: "#p0" + ((count > 1) ? " to #p" + (count - 1) : "") + " (or #a0"
							+ ((count > 1) ? " to #a" + (count - 1) : "") + ") always work";
			if (names == null && count > 0) {
				throw new IllegalArgumentException(prefix(expression, annotation, method) + " names " + variable
						+ ", but the parameter names of " + describe(method) + " are not available: compile with"
						+ " -parameters (Spring Boot's parent POM sets it, importing its BOM does not), or refer"
						+ " to parameters by position: " + positions);
			}
			String known = (names == null || names.length == 0) ? ""
					: "; parameters: " + Arrays.stream(names).map((name) -> "#" + name).collect(Collectors.joining(", "));
			throw new IllegalArgumentException(prefix(expression, annotation, method) + " names " + variable
					+ ", which is not a parameter" + known + "; " + positions);
		}
	}

	/**
	 * Evaluates a key expression.
	 * @param expression the SpEL expression, such as {@code #order.id}
	 * @param method the annotated method
	 * @param arguments the call's arguments
	 * @param annotation describes the annotation, for error messages, such as
	 * {@code @DistributedLock(name = "orders")}
	 * @return the key as text
	 * @throws IllegalArgumentException naming the method if the expression does not parse, fails, throws or
	 * yields {@code null}
	 */
	public String evaluate(String expression, Method method, @Nullable Object[] arguments, String annotation) {
		Expression parsed = parsed(expression, method, annotation);
		SimpleEvaluationContext context = SafeSpel.context();
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
			throw new IllegalArgumentException(prefix(expression, annotation, method) + " failed: " + ex.getMessage(),
					ex);
		}
		// SpEL passes on what a method of an argument throws, such as substring's StringIndexOutOfBoundsException.
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(prefix(expression, annotation, method) + " threw " + ex, ex);
		}
		if (value == null) {
			throw new IllegalArgumentException(prefix(expression, annotation, method) + " evaluated to null");
		}
		return value.toString();
	}

	private Expression parsed(String expression, Method method, String annotation) {
		return this.expressions.computeIfAbsent(new CacheKey(method, expression), (key) -> {
			try {
				return SafeSpel.parse(expression);
			}
			catch (ParseException ex) {
				throw new IllegalArgumentException(
						prefix(expression, annotation, method) + " does not parse: " + ex.getMessage(), ex);
			}
		});
	}

	private static boolean isPositional(String variable, int count) {
		if (variable.length() < 3 || (variable.charAt(1) != 'p' && variable.charAt(1) != 'a')) {
			return false;
		}
		String index = variable.substring(2);
		if (!index.chars().allMatch(Character::isDigit) || index.length() > 3) {
			return false;
		}
		return Integer.parseInt(index) < count;
	}

	private static String prefix(String expression, String annotation, Method method) {
		return "key '" + expression + "' of " + annotation + " on " + describe(method);
	}

	/**
	 * @param method a method
	 * @return the method as messages show it: simple class name, method name and parameter types
	 */
	public static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
				+ ")";
	}

	private record CacheKey(Method method, String expression) {
	}

}

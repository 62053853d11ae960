package io.rediskit.autoconfigure.support;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * The one place where redis-kit parses and evaluates a developer's SpEL expression: the key of an annotation
 * ({@code @DistributedLock}, {@code @RateLimited}, ...) and the key of a rate-limit route rule. The expression
 * is the developer's; what it reads (arguments, requests) is data. An expression may read properties and getters
 * and call instance methods of that data, in a read-only {@link SimpleEvaluationContext}; it may not use a type
 * reference ({@code T(...)}), a bean reference ({@code @name}) or a constructor ({@code new ...}), which
 * {@link #inspect} finds before the first call, and the context refuses them besides, as it refuses methods of
 * {@link Class} (so {@code #p0.getClass().forName(...)} fails). A value is turned into text once and never
 * evaluated again, so user input such as <code>#{...}</code> stays text.
 */
public final class SafeSpel {

	private static final SpelExpressionParser parser = new SpelExpressionParser();

	private SafeSpel() {
	}

	/**
	 * Parses an expression.
	 * @param source the expression
	 * @return the parsed expression
	 * @throws ParseException if it does not parse
	 */
	public static Expression parse(String source) {
		return parser.parseExpression(source);
	}

	/**
	 * What an expression reads, and what it uses that key expressions do not offer.
	 * @param expression a parsed expression
	 * @return the inspection
	 */
	public static Inspection inspect(Expression expression) {
		Set<String> variables = new LinkedHashSet<>();
		String unsupported = (expression instanceof SpelExpression spel) ? collect(spel.getAST(), variables) : null;
		return new Inspection(Collections.unmodifiableSet(variables), unsupported);
	}

	/**
	 * A new evaluation context for one evaluation: read-only data binding with instance methods.
	 * @return the context, to set the expression's variables on
	 */
	public static SimpleEvaluationContext context() {
		return SimpleEvaluationContext.forReadOnlyDataBinding().withInstanceMethods().build();
	}

	// Collects the variables the expression reads; returns what it uses that the context does not offer, if any.
	private static @Nullable String collect(SpelNode node, Set<String> variables) {
		if (node instanceof TypeReference) {
			return "a type reference " + node.toStringAST();
		}
		if (node instanceof BeanReference) {
			return "a bean reference " + node.toStringAST();
		}
		if (node instanceof ConstructorReference) {
			return "a constructor " + node.toStringAST();
		}
		if (node instanceof VariableReference) {
			variables.add(node.toStringAST());
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			String unsupported = collect(node.getChild(i), variables);
			if (unsupported != null) {
				return unsupported;
			}
		}
		return null;
	}

	/**
	 * What an expression reads and uses.
	 * @param variables the variables it reads, as written ({@code #order}, {@code #p0}, {@code #request})
	 * @param unsupported what it uses that key expressions do not offer, such as {@code a type reference T(...)};
	 * {@code null} if nothing
	 */
	public record Inspection(Set<String> variables, @Nullable String unsupported) {
	}

}

package io.rediskit.autoconfigure.support;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code fallbackMethod} of an annotation ({@code @RateLimited}, {@code @DistributedLock}): a method of the
 * target class or its superclasses, of any visibility, named by the annotation, taking the annotated method's
 * parameters, optionally followed by one the annotation's exception can be passed as, and returning what the
 * annotated method returns (or a subtype). It is called on the target itself, not through its proxy, so its own
 * annotations do not apply.
 *
 * @param method the method, made accessible
 * @param takesException whether it takes the exception as its last parameter
 */
public record FallbackMethod(Method method, boolean takesException) {

	/**
	 * Calls the fallback with the annotated method's arguments, and the exception if it takes one.
	 * @param target the object the annotated method was called on; {@code null} only for a static fallback
	 * @param arguments the annotated method's arguments
	 * @param exception why the annotated method did not run
	 * @return what the fallback returns
	 * @throws Throwable what the fallback throws, unwrapped
	 */
	public @Nullable Object invoke(@Nullable Object target, @Nullable Object[] arguments, Throwable exception)
			throws Throwable {
		boolean isStatic = Modifier.isStatic(this.method.getModifiers());
		if (target == null && !isStatic) {
			throw new IllegalStateException("Cannot call fallback " + describe(this.method)
					+ ": the proxy has no target object", exception);
		}
		Object[] actual = arguments;
		if (this.takesException) {
			actual = Arrays.copyOf(arguments, arguments.length + 1);
			actual[arguments.length] = exception;
		}
		try {
			return this.method.invoke(isStatic ? null : target, actual);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Finds the fallback: nearest class first; in one class, one taking the exception is preferred, the most
	 * specific one if several do.
	 * @param name the method name the annotation gives
	 * @param description the annotation as error messages show it, such as {@code @RateLimited(name = "login")}
	 * @param exceptionType what the annotation passes to a fallback taking an exception
	 * @param annotated the annotated method, as declared on the target class
	 * @param targetClass the class of the bean behind any proxy
	 * @return the fallback
	 * @throws IllegalStateException naming the annotation, the method and what would match, when none does
	 */
	public static FallbackMethod find(String name, String description, Class<? extends Throwable> exceptionType,
			Method annotated, Class<?> targetClass) {
		Class<?>[] parameters = annotated.getParameterTypes();
		List<Method> named = new ArrayList<>();
		for (Class<?> type = targetClass; type != null && type != Object.class; type = type.getSuperclass()) {
			Method found = null;
			for (Method candidate : type.getDeclaredMethods()) {
				if (!candidate.getName().equals(name) || candidate.isBridge() || candidate.isSynthetic()) {
					continue;
				}
				named.add(candidate);
				if (matches(candidate, parameters, annotated.getReturnType(), exceptionType)
						&& (found == null || better(candidate, found))) {
					found = candidate;
				}
			}
			if (found != null) {
				ReflectionUtils.makeAccessible(found);
				return new FallbackMethod(found, found.getParameterCount() > parameters.length);
			}
		}
		throw new IllegalStateException(missing(name, description, exceptionType, annotated, targetClass, named));
	}

	private static boolean matches(Method candidate, Class<?>[] parameters, Class<?> returnType,
			Class<? extends Throwable> exceptionType) {
		Class<?>[] types = candidate.getParameterTypes();
		if (types.length != parameters.length && types.length != parameters.length + 1) {
			return false;
		}
		for (int i = 0; i < parameters.length; i++) {
			if (types[i] != parameters[i]) {
				return false;
			}
		}
		if (types.length > parameters.length && !types[parameters.length].isAssignableFrom(exceptionType)) {
			return false;
		}
		return ClassUtils.isAssignable(returnType, candidate.getReturnType());
	}

	// One taking the exception beats one without; of two taking it, the narrower exception type wins.
	private static boolean better(Method candidate, Method found) {
		int count = candidate.getParameterCount();
		if (count != found.getParameterCount()) {
			return count > found.getParameterCount();
		}
		return count > 0 && found.getParameterTypes()[count - 1].isAssignableFrom(candidate.getParameterTypes()[count - 1]);
	}

	private static String missing(String name, String description, Class<? extends Throwable> exceptionType,
			Method annotated, Class<?> targetClass, List<Method> named) {
		String parameters = parameterList(annotated);
		String returnType = annotated.getReturnType().getSimpleName();
		StringBuilder message = new StringBuilder(description).append(" on ")
			.append(describe(annotated))
			.append(" names fallbackMethod \"")
			.append(name)
			.append("\", but ")
			.append(targetClass.getName())
			.append(" has no matching method: expected ")
			.append(returnType)
			.append(' ')
			.append(name)
			.append('(')
			.append(parameters)
			.append(") or ")
			.append(returnType)
			.append(' ')
			.append(name)
			.append('(')
			.append(parameters.isEmpty() ? "" : parameters + ", ")
			.append(exceptionType.getSimpleName())
			.append(")")
			.append(", of any visibility, returning ")
			.append(returnType)
			.append(annotated.getReturnType().isPrimitive() ? "" : " or a subtype")
			.append(" (the exception parameter may be a supertype)");
		if (!named.isEmpty()) {
			message.append("; found ")
				.append(named.stream()
					.map((method) -> method.getReturnType().getSimpleName() + " " + describe(method))
					.collect(Collectors.joining(", ")))
				.append(", which ")
				.append((named.size() == 1) ? "does" : "do")
				.append(" not match");
		}
		return message.toString();
	}

	private static String describe(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "(" + parameterList(method) + ")";
	}

	private static String parameterList(Method method) {
		return Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "));
	}

}

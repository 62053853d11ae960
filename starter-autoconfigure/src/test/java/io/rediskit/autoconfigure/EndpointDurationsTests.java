package io.rediskit.autoconfigure;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.rediskit.autoconfigure.support.Durations;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AnnotationTypeFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One duration format in every redis-kit endpoint's JSON and the console's (which is the endpoints' descriptors):
 * text as properties take it ({@code 15m}, {@link Durations#format}) or a number of milliseconds in a
 * {@code ...Millis} field, never a {@link Duration} left to the JSON mapper ({@code PT15M} from Jackson 3,
 * {@code 900.0} from a mapper that writes durations as numbers). Checked on the types every read operation and
 * every console page returns, so a field added to a descriptor, or to a core record a descriptor carries, is
 * checked too.
 */
class EndpointDurationsTests {

	@Test
	void noReadOperationReturnsADuration() throws Exception {
		List<Class<?>> endpoints = new ArrayList<>();
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {

			@Override
			protected boolean isCandidateComponent(AnnotatedBeanDefinition definition) {
				return definition.getMetadata().isIndependent();
			}

		};
		scanner.addIncludeFilter(new AnnotationTypeFilter(Endpoint.class));
		for (BeanDefinition candidate : scanner.findCandidateComponents("io.rediskit")) {
			endpoints.add(Class.forName(candidate.getBeanClassName()));
		}
		assertThat(endpoints).hasSizeGreaterThanOrEqualTo(11);
		List<String> durations = new ArrayList<>();
		int operations = 0;
		for (Class<?> endpoint : endpoints) {
			for (Method method : endpoint.getMethods()) {
				if (method.isAnnotationPresent(ReadOperation.class)) {
					operations++;
					walk(method.getGenericReturnType(), endpoint.getSimpleName() + "." + method.getName() + "()",
							new HashSet<>(), durations);
				}
			}
		}
		assertThat(operations).isGreaterThanOrEqualTo(endpoints.size());
		assertThat(durations).as("durations left to the JSON mapper").isEmpty();
	}

	@Test
	void noConsolePageReturnsADuration() throws Exception {
		Class<?> data = Class.forName("io.rediskit.autoconfigure.console.ConsoleData");
		List<String> durations = new ArrayList<>();
		int pages = 0;
		for (Method method : data.getDeclaredMethods()) {
			if (!Modifier.isPrivate(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
					&& method.getReturnType() != void.class && !method.isSynthetic()) {
				pages++;
				walk(method.getGenericReturnType(), "ConsoleData." + method.getName() + "()", new HashSet<>(),
						durations);
			}
		}
		assertThat(pages).isGreaterThan(5);
		assertThat(durations).as("durations left to the JSON mapper").isEmpty();
	}

	@Test
	void theCheckFindsADurationDeepInADescriptor() {
		List<String> durations = new ArrayList<>();
		walk(Outer.class, "Outer", new HashSet<>(), durations);
		assertThat(durations).containsExactly("Outer.inner[].ttl");
	}

	record Inner(String name, Duration ttl) {
	}

	record Outer(List<Inner> inner, String period, long periodMillis) {
	}

	private static void walk(Type type, String path, Set<Type> seen, List<String> durations) {
		if (type == Duration.class) {
			durations.add(path);
			return;
		}
		if (!seen.add(type)) {
			return;
		}
		if (type instanceof ParameterizedType parameterized) {
			walk(parameterized.getRawType(), path, seen, durations);
			for (Type argument : parameterized.getActualTypeArguments()) {
				walk(argument, path + "[]", seen, durations);
			}
		}
		else if (type instanceof GenericArrayType array) {
			walk(array.getGenericComponentType(), path + "[]", seen, durations);
		}
		else if (type instanceof WildcardType wildcard) {
			for (Type bound : wildcard.getUpperBounds()) {
				walk(bound, path, seen, durations);
			}
		}
		else if (type instanceof TypeVariable<?> variable) {
			for (Type bound : variable.getBounds()) {
				walk(bound, path, seen, durations);
			}
		}
		else if (type instanceof Class<?> cls) {
			if (cls.isArray()) {
				walk(cls.getComponentType(), path + "[]", seen, durations);
			}
			else if (cls.isRecord()) {
				for (RecordComponent component : cls.getRecordComponents()) {
					walk(component.getGenericType(), path + "." + component.getName(), seen, durations);
				}
			}
		}
	}

}

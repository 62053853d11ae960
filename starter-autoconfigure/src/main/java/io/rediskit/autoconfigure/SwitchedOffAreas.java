package io.rediskit.autoconfigure;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rediskit.autoconfigure.support.InvalidAnnotationException;
import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.DistributedLock;
import io.rediskit.lock.DistributedSemaphore;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.ratelimit.RateLimited;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Fails startup on configuration that an area switched off would silently ignore, once every bean exists:
 * <ul>
 * <li>a method annotated {@code @DistributedLock} or {@code @ScheduledLock} while the lock is off
 * ({@code redis-kit.lock.enabled=false}), {@code @DistributedSemaphore} while semaphores are off
 * ({@code redis-kit.lock.semaphore.enabled=false}, or the lock), {@code @RateLimited} while rate limiting is off
 * ({@code redis-kit.rate-limit.enabled=false}): it would run unguarded, as ShedLock refuses to start without a
 * provider. Naming every such method, unless the area's {@code unguarded-when-disabled} is {@code true};</li>
 * <li>{@code redis-kit.lock.leader.roles} while leader election is off ({@code redis-kit.lock.leader.enabled=false}, or the
 * lock it runs on): no instance would stand for them.</li>
 * </ul>
 */
final class SwitchedOffAreas implements SmartInitializingSingleton {

	private final Environment environment;

	private final ListableBeanFactory beanFactory;

	SwitchedOffAreas(Environment environment, ListableBeanFactory beanFactory) {
		this.environment = environment;
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		checkLeaderRoles();
		checkAnnotatedMethods();
	}

	private void checkLeaderRoles() {
		String off = off("redis-kit.lock", "redis-kit.lock.leader");
		if (off == null) {
			return;
		}
		List<String> roles = Binder.get(this.environment)
			.bind("redis-kit.lock.leader.roles", Bindable.listOf(String.class))
			.orElse(List.of());
		if (!roles.isEmpty()) {
			String property = (this.environment.getProperty("redis-kit.lock.leader.roles") != null) ? "redis-kit.lock.leader.roles"
					: "redis-kit.lock.leader.roles[0]";
			throw new InvalidPropertiesException(List.of(new Violation(property, String.join(", ", roles), property
					+ " names roles, but leader election is off (" + off + "=false): no instance would stand for"
					+ " them. Remove the roles, or turn leader election on")));
		}
	}

	private void checkAnnotatedMethods() {
		String lockOff = off("redis-kit.lock");
		String semaphoreOff = off("redis-kit.lock", "redis-kit.lock.semaphore");
		String rateLimitOff = off("redis-kit.rate-limit");
		Map<Class<? extends Annotation>, String> guards = new LinkedHashMap<>();
		if (lockOff != null && !unguarded("redis-kit.lock")) {
			guards.put(DistributedLock.class, lockOff);
			guards.put(ScheduledLock.class, lockOff);
		}
		if (semaphoreOff != null && !unguarded("redis-kit.lock.semaphore")) {
			guards.put(DistributedSemaphore.class, semaphoreOff);
		}
		if (rateLimitOff != null && !unguarded("redis-kit.rate-limit")) {
			guards.put(RateLimited.class, rateLimitOff);
		}
		if (guards.isEmpty()) {
			return;
		}
		Map<String, List<String>> failures = new LinkedHashMap<>();
		Set<Class<?>> seen = new HashSet<>();
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = type(beanName);
			if (type == null || !seen.add(type)) {
				continue;
			}
			guards.forEach((annotation, off) -> {
				if (!AnnotationUtils.isCandidateClass(type, annotation)) {
					return;
				}
				Set<Method> methods = MethodIntrospector.selectMethods(type,
						(MethodIntrospector.MetadataLookup<Annotation>) (method) -> AnnotatedElementUtils
							.findMergedAnnotation(method, annotation))
					.keySet();
				String area = off.substring(0, off.length() - ".enabled".length());
				for (Method method : methods) {
					failures.computeIfAbsent(annotation.getSimpleName(), (name) -> new ArrayList<>())
						.add("bean '" + beanName + "' (" + type.getName() + "): @" + annotation.getSimpleName() + " on "
								+ MethodKeyEvaluator.describe(method) + " would run unguarded: " + off + " is false."
								+ " Turn it on, remove the annotation, or set " + unguardedProperty(annotation, area)
								+ "=true to run such methods without it");
				}
			});
		}
		if (!failures.isEmpty()) {
			throw new InvalidAnnotationException(failures);
		}
	}

	// The opt-in of the annotation's own area: a semaphore's when semaphores alone are off.
	private static String unguardedProperty(Class<? extends Annotation> annotation, String offArea) {
		return ((annotation == DistributedSemaphore.class) ? "redis-kit.lock.semaphore" : offArea)
				+ ".unguarded-when-disabled";
	}

	/**
	 * @param areas the area and the areas it needs, outermost first
	 * @return the {@code enabled} property that switches the area off, or {@code null} when it is on
	 */
	private @Nullable String off(String... areas) {
		for (String area : areas) {
			if (!this.environment.getProperty(area + ".enabled", Boolean.class, true)) {
				return area + ".enabled";
			}
		}
		return null;
	}

	private boolean unguarded(String area) {
		boolean own = this.environment.getProperty(area + ".unguarded-when-disabled", Boolean.class, false);
		// Semaphores are off with the lock: the lock's opt-in covers them then.
		return own || (area.startsWith("redis-kit.lock.") && unguarded("redis-kit.lock")
				&& !this.environment.getProperty("redis-kit.lock.enabled", Boolean.class, true));
	}

	private @Nullable Class<?> type(String beanName) {
		try {
			Class<?> type = this.beanFactory.getType(beanName, false);
			return (type != null && !Proxy.isProxyClass(type)) ? ClassUtils.getUserClass(type) : null;
		}
		catch (BeansException ex) {
			return null;
		}
	}

}

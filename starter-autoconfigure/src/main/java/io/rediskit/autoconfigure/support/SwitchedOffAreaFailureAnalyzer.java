package io.rediskit.autoconfigure.support;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.UnsatisfiedDependencyException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.analyzer.AbstractInjectionFailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Reports a missing bean of a redis-kit area that its switch turned off ({@code redis-kit.<area>.enabled=false}, or
 * the switch of the family it belongs to) as that, instead of Spring's generic "required a bean ... that could not
 * be found": {@code LeaderElections is not available because redis-kit.lock.leader.enabled=false}, naming the bean
 * that injects it and both ways out. Every area's switch is one row of {@link #AREAS}, mapping the area's public
 * types to it. A missing bean whose area is on is left to Spring Boot's analyzer.
 */
class SwitchedOffAreaFailureAnalyzer extends AbstractInjectionFailureAnalyzer<NoSuchBeanDefinitionException>
		implements Ordered {

	/**
	 * Each area: its switches, the family's first (a member is off when the family is), and the public types its
	 * auto-configuration registers, by name, so that no area's classes (the queue's need Jackson) are loaded here.
	 */
	private static final List<Area> AREAS = List.of(
			area(List.of("redis-kit.lock.enabled"), "io.rediskit.lock.LockRegistry", "io.rediskit.lock.Locks",
					"io.rediskit.lock.RedlockRegistry"),
			area(List.of("redis-kit.lock.enabled", "redis-kit.lock.semaphore.enabled"),
					"io.rediskit.lock.SemaphoreRegistry"),
			area(List.of("redis-kit.lock.enabled", "redis-kit.lock.latch.enabled"), "io.rediskit.latch.LatchRegistry"),
			area(List.of("redis-kit.lock.enabled", "redis-kit.lock.read-write.enabled"),
					"io.rediskit.lock.ReadWriteLockRegistry"),
			area(List.of("redis-kit.lock.enabled", "redis-kit.lock.fair.enabled"), "io.rediskit.lock.FairLockRegistry"),
			area(List.of("redis-kit.lock.enabled", "redis-kit.lock.leader.enabled"),
					"io.rediskit.leader.LeaderElections"),
			area(List.of("redis-kit.rate-limit.enabled"), "io.rediskit.ratelimit.RateLimiterRegistry"),
			area(List.of("redis-kit.queue.enabled"), "io.rediskit.queue.QueueRegistry", "io.rediskit.queue.RecurringJobs",
					"io.rediskit.autoconfigure.queue.QueueListenerContainerRegistry"),
			area(List.of("redis-kit.cache.enabled"), "io.rediskit.cache.RedisKitCacheManager"),
			area(List.of("redis-kit.bloom.enabled"), "io.rediskit.bloom.BloomFilterRegistry"),
			area(List.of("redis-kit.counter.enabled"), "io.rediskit.counter.UniqueCounterRegistry",
					"io.rediskit.bitmap.BitmapRegistry"),
			area(List.of("redis-kit.geo.enabled"), "io.rediskit.geo.GeoIndexRegistry"),
			area(List.of("redis-kit.id.enabled"), "io.rediskit.id.IdGeneratorRegistry"),
			area(List.of("redis-kit.leaderboard.enabled"), "io.rediskit.rank.LeaderboardRegistry"),
			area(List.of("redis-kit.recent-items.enabled"), "io.rediskit.recent.RecentItemsRegistry"),
			area(List.of("redis-kit.keys.enabled"), "io.rediskit.keys.KeyTools"),
			area(List.of("redis-kit.outage.enabled"), "io.rediskit.support.RedisAvailability"));

	private final @Nullable Environment environment;

	/**
	 * @param environment the application's, where the switches are read; given by Spring Boot when it loads the
	 * analyzer
	 */
	SwitchedOffAreaFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	public int getOrder() {
		// Before Spring Boot's analyzer of a missing bean, which would answer first (it is not ordered).
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause,
			@Nullable String description) {
		Class<?> type = cause.getBeanType();
		Environment environment = this.environment;
		if (type == null || environment == null) {
			return null;
		}
		String off = offSwitch(environment, type.getName());
		if (off == null) {
			return null;
		}
		String typeName = type.getSimpleName();
		UnsatisfiedDependencyException injection = findCause(rootFailure, UnsatisfiedDependencyException.class);
		String bean = (injection != null && injection.getBeanName() != null) ? "bean '" + injection.getBeanName() + "'"
				: null;
		String needs = (bean != null) ? bean : "a bean";
		StringBuilder text = new StringBuilder(typeName + " is not available because " + off + "=false, and "
				+ needs + " injects it");
		if (description != null) {
			text.append(" (").append(description).append(')');
		}
		text.append('.');
		String action = "Remove " + off + "=false to turn the area on, or remove the injection point"
				+ ((bean != null) ? " of " + bean : "") + " (inject ObjectProvider<" + typeName
				+ "> where the bean can do without it).";
		return new FailureAnalysis(text.toString(), action, cause);
	}

	/** @return every switch an area of {@link #AREAS} has, for the test that each area switch is one of them */
	static Set<String> switches() {
		return AREAS.stream().flatMap((area) -> area.switches().stream()).collect(Collectors.toSet());
	}

	/** @return the first switch that turns off the area of a type, or {@code null} if none does or none has it */
	private static @Nullable String offSwitch(Environment environment, String typeName) {
		for (Area area : AREAS) {
			if (area.types().contains(typeName)) {
				for (String property : area.switches()) {
					if (Boolean.FALSE.equals(environment.getProperty(property, Boolean.class, true))) {
						return property;
					}
				}
				return null;
			}
		}
		return null;
	}

	private static Area area(List<String> switches, String... types) {
		return new Area(switches, Set.of(types));
	}

	/**
	 * @param switches the properties that turn the area off, the family's before the member's own
	 * @param types the area's public types, by class name
	 */
	private record Area(List<String> switches, Set<String> types) {
	}

}

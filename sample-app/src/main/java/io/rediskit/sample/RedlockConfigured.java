package io.rediskit.sample;

import java.util.List;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code redis-kit.lock.redlock.nodes} lists servers: the starter then provides Redlock. */
class RedlockConfigured implements Condition {

	@Override
	public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return !Binder.get(context.getEnvironment())
			.bind("redis-kit.lock.redlock.nodes", Bindable.listOf(String.class))
			.orElse(List.of())
			.isEmpty();
	}

}

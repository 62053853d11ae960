package io.rediskit.autoconfigure.lock;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code redis-kit.lock.redlock.nodes} lists at least one node, whether as a YAML list or as a
 * comma-separated value.
 */
class OnRedlockNodesCondition extends SpringBootCondition {

	static final String NODES = "redis-kit.lock.redlock.nodes";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<String> nodes = Binder.get(context.getEnvironment())
			.bind(NODES, Bindable.listOf(String.class))
			.orElse(List.of());
		return nodes.isEmpty() ? ConditionOutcome.noMatch(NODES + " is empty")
				: ConditionOutcome.match(NODES + " lists " + nodes.size() + " nodes");
	}

}

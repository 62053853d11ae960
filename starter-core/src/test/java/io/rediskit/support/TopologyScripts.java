package io.rediskit.support;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import io.rediskit.testsupport.RedisTopology;

/**
 * The {@link ScriptExecutor} the starter would build from a {@link RedisTopology}'s connection factory: the one
 * piece of the topology harness that needs this module's classes, so it stays in this module's tests while the
 * harness lives in {@code test-support}. One executor per deployment, as an application has one.
 */
public final class TopologyScripts {

	private static final Map<RedisTopology, ScriptExecutor> executors = Collections
		.synchronizedMap(new WeakHashMap<>());

	private TopologyScripts() {
	}

	/**
	 * @param redis a running deployment
	 * @return the script executor over its connection factory, the same one each time
	 */
	public static ScriptExecutor of(RedisTopology redis) {
		return executors.computeIfAbsent(redis, (deployment) -> ScriptExecutor.of(deployment.connections()));
	}

}

package io.rediskit.geo;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Listeners;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.ScriptExecutor;

/**
 * What every handle of one index shares, handed down by the registry: the top-level index and the indexes of
 * its regions report to the same listeners and observe their calls as one index, their outage warnings throttled
 * together.
 */
record GeoIndexParts(String name, GeoIndexSpec spec, ScriptExecutor scripts, CommandExecutor commands, KeyNaming keyNaming,
		Listeners<GeoListener> listeners, ObservedCalls calls) {
}

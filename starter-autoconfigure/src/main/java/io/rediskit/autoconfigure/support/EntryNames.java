package io.rediskit.autoconfigure.support;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The names an actuator endpoint (and the console, which reads the same descriptors) lists for an area: the entries
 * configured under its properties and those created in code so far, sorted. A configured entry is listed before its
 * handle exists; one created in code only once it is.
 */
public final class EntryNames {

	private EntryNames() {
	}

	/**
	 * @param used the names the registry has handed out
	 * @param configured the configured entries, by name
	 * @return both, sorted, unmodifiable
	 */
	public static SortedSet<String> of(Collection<String> used, Map<String, ?> configured) {
		TreeSet<String> names = new TreeSet<>(used);
		names.addAll(configured.keySet());
		return Collections.unmodifiableSortedSet(names);
	}

}

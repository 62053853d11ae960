package io.rediskit.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The handles a registry handed out most recently, by name, for what lists them (the actuator endpoints, the
 * console): at most {@link #MAX} names, the least recently handed out forgotten first, so that a registry asked for
 * a million distinct names over time keeps a bounded memory. What it forgets is not lost in Redis, only no longer
 * listed.
 *
 * @param <H> the handle
 */
public final class RecentlyUsed<H> {

	/** The most names remembered. */
	public static final int MAX = 1000;

	private final LinkedHashMap<String, H> handles = new LinkedHashMap<>(16, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, H> eldest) {
			return size() > MAX;
		}

	};

	/**
	 * Remembers a handle, in place of an earlier one of its name.
	 * @param name its name
	 * @param handle the handle
	 * @return the handle
	 */
	public synchronized H remember(String name, H handle) {
		this.handles.put(name, handle);
		return handle;
	}

	/** @return the handles remembered, sorted by name */
	public synchronized List<H> sorted() {
		// Reading with get() would count as a use: the entries are copied as they are.
		TreeMap<String, H> byName = new TreeMap<>();
		this.handles.forEach(byName::put);
		return new ArrayList<>(byName.values());
	}

}

package io.rediskit.benchmarks.curves;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The sizes the {@code curves} benchmark grows each primitive through, and which areas it runs, from system
 * properties under {@value #PREFIX} (comma-separated whole numbers, ascending):
 * <ul>
 * <li>{@code areas}: {@code ratelimit,geo,queue,bloom,keys} (default: all, in that order);</li>
 * <li>{@code limits}: the rate limits whose bytes per key are measured, default {@code 10,1000,100000};</li>
 * <li>{@code geo-members}: members in the geo index, default {@code 100000,1000000,10000000};</li>
 * <li>{@code queue-waiting}: messages waiting in the queue, default {@code 10000,100000,1000000};</li>
 * <li>{@code bloom-items}: items a filter is sized for and filled with for bytes per item, default
 * {@code 1000000};</li>
 * <li>{@code bloom-shard-bits}: bits of the one shard the throughput is measured on, default
 * {@code 1000000,100000000};</li>
 * <li>{@code keys}: keys in the key space a scan and a big-key report go through, default
 * {@code 100000,1000000}.</li>
 * </ul>
 * {@code -D}{@value #PREFIX}{@code preset=smoke} starts from tiny sizes instead, for checking the benchmark end to
 * end in seconds; a size property given as well still wins.
 *
 * @param areas the areas to run, in order
 * @param limits rate limits
 * @param geoMembers geo index sizes
 * @param queueWaiting queue backlogs
 * @param bloomItems filter sizes for bytes per item
 * @param bloomShardBits shard sizes for throughput
 * @param keys key-space sizes
 * @param preset {@code full} or {@code smoke}
 */
public record CurveSizes(List<String> areas, List<Long> limits, List<Long> geoMembers, List<Long> queueWaiting,
		List<Long> bloomItems, List<Long> bloomShardBits, List<Long> keys, String preset) {

	/** Prefix of the properties. */
	public static final String PREFIX = "rediskit.benchmark.curves.";

	/** Every area, in the order they run. */
	public static final List<String> AREAS = List.of("ratelimit", "geo", "queue", "bloom", "keys");

	/**
	 * Reads the sizes.
	 * @param properties where the {@value #PREFIX}{@code *} properties are looked up
	 * @return the sizes
	 * @throws IllegalArgumentException naming the property that is malformed
	 */
	public static CurveSizes from(Properties properties) {
		String preset = properties.getProperty(PREFIX + "preset", "full").trim().toLowerCase(Locale.ROOT);
		boolean smoke;
		switch (preset) {
			case "full" -> smoke = false;
			case "smoke" -> smoke = true;
			default -> throw new IllegalArgumentException(PREFIX + "preset must be full or smoke, was '" + preset + "'");
		}
		return new CurveSizes(areas(properties.getProperty(PREFIX + "areas")),
				sizes(properties, "limits", smoke ? "10,100" : "10,1000,100000"),
				sizes(properties, "geo-members", smoke ? "1000,10000" : "100000,1000000,10000000"),
				sizes(properties, "queue-waiting", smoke ? "500,5000" : "10000,100000,1000000"),
				sizes(properties, "bloom-items", smoke ? "10000" : "1000000"),
				sizes(properties, "bloom-shard-bits", smoke ? "100000,1000000" : "1000000,100000000"),
				sizes(properties, "keys", smoke ? "2000,20000" : "100000,1000000"), preset);
	}

	private static List<String> areas(@Nullable String value) {
		if (value == null || value.isBlank()) {
			return AREAS;
		}
		Set<String> areas = new LinkedHashSet<>();
		for (String area : value.split(",")) {
			String name = area.trim().toLowerCase(Locale.ROOT);
			if (!AREAS.contains(name)) {
				throw new IllegalArgumentException(PREFIX + "areas must name some of " + String.join(",", AREAS)
						+ ", was '" + value + "'");
			}
			areas.add(name);
		}
		return List.copyOf(areas);
	}

	private static List<Long> sizes(Properties properties, String name, String fallback) {
		String value = properties.getProperty(PREFIX + name, fallback);
		List<Long> sizes = new ArrayList<>();
		for (String part : value.split(",")) {
			long size;
			try {
				size = Long.parseLong(part.trim().replace("_", ""));
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(PREFIX + name + " must be whole numbers separated by commas, such as "
						+ fallback + ", was '" + value + "'");
			}
			if (size < 1 || (!sizes.isEmpty() && size <= sizes.get(sizes.size() - 1))) {
				throw new IllegalArgumentException(PREFIX + name + " must be positive and ascending, was '" + value + "'");
			}
			sizes.add(size);
		}
		return List.copyOf(sizes);
	}

}

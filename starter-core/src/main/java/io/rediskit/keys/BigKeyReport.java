package io.rediskit.keys;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The biggest keys of a scan: by memory, and by element count per type, with totals per type and per prefix.
 * Figures are read key by key while the scan runs, so they describe each key at the moment it was read.
 *
 * @param keysScanned how many keys were looked at
 * @param largestByMemory the keys with the largest {@code MEMORY USAGE}, largest first
 * @param largestByElements per type, the keys with the most elements, largest first
 * @param totalsByType totals per type
 * @param totalsByPrefix totals per prefix (the key up to its first delimiter, or the whole key)
 * @param elapsed how long the report took
 */
public record BigKeyReport(long keysScanned, List<KeyInfo> largestByMemory, Map<String, List<KeyInfo>> largestByElements,
		Map<String, KeyTotals> totalsByType, Map<String, KeyTotals> totalsByPrefix, Duration elapsed) {
}

package io.rediskit.keys;

import java.time.Duration;
import java.util.List;

/**
 * What a deletion did, or for a dry run would do.
 *
 * @param dryRun whether nothing was deleted
 * @param keys keys deleted (a dry run: keys matched)
 * @param elements elements removed in batches before the keys were unlinked
 * @param listed for a dry run, the first keys that would go, at most the options' list limit; else empty
 * @param elapsed how long it took
 */
public record DeletionReport(boolean dryRun, long keys, long elements, List<String> listed, Duration elapsed) {
}

/**
 * Auto-configuration of bitmaps (check-in calendars, packed counters): properties, the registry, metrics.
 */
@NullMarked
package io.rediskit.autoconfigure.bitmap;

import org.jspecify.annotations.NullMarked;

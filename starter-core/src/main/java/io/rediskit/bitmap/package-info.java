/**
 * Bitmaps: {@link io.rediskit.bitmap.BitmapRegistry} hands out {@link io.rediskit.bitmap.CheckInCalendar}s (a
 * bit per day, a key per user per month), {@link io.rediskit.bitmap.DailyActivity} bitmaps (a bit per user, a key
 * per day, combined over days with {@code BITOP}) and {@link io.rediskit.bitmap.PackedCounters} (many small counters in
 * one string, over {@code BITFIELD} with an explicit overflow mode), each call one round trip.
 */
@NullMarked
package io.rediskit.bitmap;

import org.jspecify.annotations.NullMarked;

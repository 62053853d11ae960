/**
 * What every primitive shares: key naming with hash tags, and Lua scripts loaded once and run by
 * {@code EVALSHA}.
 */
@NullMarked
package io.rediskit.support;

import org.jspecify.annotations.NullMarked;

/**
 * Helpers the annotation advisors of all areas share: SpEL keys over method arguments and duration
 * attributes.
 */
@NullMarked
package io.rediskit.autoconfigure.support;

import org.jspecify.annotations.NullMarked;

/**
 * Helpers the annotation advisors of all areas share (SpEL keys over method arguments, duration attributes,
 * the startup check of every annotated method), and the startup failure analyses of bad annotations and
 * properties.
 */
@NullMarked
package io.rediskit.autoconfigure.support;

import org.jspecify.annotations.NullMarked;

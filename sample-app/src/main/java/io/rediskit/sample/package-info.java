/**
 * A small web app that exercises redis-kit: order payments guarded by a distributed lock, declaratively
 * and programmatically.
 */
@NullMarked
package io.rediskit.sample;

import org.jspecify.annotations.NullMarked;

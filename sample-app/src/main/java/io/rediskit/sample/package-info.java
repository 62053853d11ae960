/**
 * A small web app that exercises redis-kit: order payments guarded by a distributed lock, declaratively
 * and programmatically; an API limited per client with each rate-limit algorithm, declaratively, in code and
 * with a fallback; and a login limited per user name that fails closed.
 */
@NullMarked
package io.rediskit.sample;

import org.jspecify.annotations.NullMarked;

/**
 * What shows whether redis-kit considers Redis available ({@link io.rediskit.support.RedisAvailability}): its
 * metrics and its health indicator. The availability itself is a bean of
 * {@link io.rediskit.autoconfigure.RedisKitAutoConfiguration}, configured under {@code redis-kit.outage}.
 */
@NullMarked
package io.rediskit.autoconfigure.outage;

import org.jspecify.annotations.NullMarked;

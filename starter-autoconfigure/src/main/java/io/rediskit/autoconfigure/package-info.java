/**
 * Spring Boot auto-configuration of redis-kit: what all areas share.
 */
@NullMarked
package io.rediskit.autoconfigure;

import org.jspecify.annotations.NullMarked;

/**
 * The {@code bloom} benchmark: redis-kit's Bloom filter against Redisson's {@code RBloomFilter}.
 */
@NullMarked
package io.rediskit.benchmarks.bloom;

import org.jspecify.annotations.NullMarked;

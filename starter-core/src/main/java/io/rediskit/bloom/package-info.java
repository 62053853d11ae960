/**
 * Bloom filters: {@link io.rediskit.bloom.BloomFilterRegistry} hands out {@link io.rediskit.bloom.BloomFilter}s
 * sized from their expected insertions and false-positive rate, kept in Redis bitmaps (one round trip per
 * operation or batch) or, where the server offers {@code BF.*}, in native RedisBloom filters.
 */
@NullMarked
package io.rediskit.bloom;

import org.jspecify.annotations.NullMarked;

/**
 * Key-space tools an operator can run on production: {@link io.rediskit.keys.KeyTools} scans every master with
 * {@code SCAN} (never {@code KEYS}), paced and resumable, reports the biggest keys, and deletes big keys and key
 * patterns in small batches with {@code UNLINK}.
 */
@NullMarked
package io.rediskit.keys;

import org.jspecify.annotations.NullMarked;

/**
 * What every primitive shares: the rule for configured names ({@link io.rediskit.support.Names}), key and
 * channel naming with hash tags ({@link io.rediskit.support.KeyNaming}), the one executor of Lua scripts, sync
 * and async ({@link io.rediskit.support.ScriptExecutor}), the classifier of Redis failures
 * ({@link io.rediskit.support.RedisFailures}), guarded listeners ({@link io.rediskit.support.Listeners}), a
 * warning logged once per interval ({@link io.rediskit.support.ThrottledLog}), the gate that refuses calls at
 * once while Redis is known to be unavailable ({@link io.rediskit.support.RedisAvailability}), the handles of a
 * registry by name with the rule of one spec per name ({@link io.rediskit.support.NamedSpecs}), the upper
 * bound of every TTL ({@link io.rediskit.support.Expiry}), and the one instrumentation contract: Micrometer
 * observations documented by {@link io.rediskit.support.RedisKitObservation} and made through
 * {@link io.rediskit.support.Observations}.
 */
@NullMarked
package io.rediskit.support;

import org.jspecify.annotations.NullMarked;

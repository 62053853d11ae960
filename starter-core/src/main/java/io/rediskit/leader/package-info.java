/**
 * Leader election over the lock: {@link io.rediskit.leader.LeaderElections} stands for roles, one
 * {@link io.rediskit.leader.LeaderElection} each, holding the lock {@code leader:<role>} of any
 * {@link io.rediskit.lock.Locks} as a lease the watchdog renews, with the lock's fencing token as the term; grants and
 * revocations go to {@link io.rediskit.leader.LeadershipListener}s. Built on the lock's public API only
 * ({@code RedisLock.acquireRenewedAsync}, {@code Lease.certainValidity}, {@code RedisLock.holder}); configured under
 * {@code redis-kit.lock.leader}, a member of the lock family.
 */
@NullMarked
package io.rediskit.leader;

import org.jspecify.annotations.NullMarked;

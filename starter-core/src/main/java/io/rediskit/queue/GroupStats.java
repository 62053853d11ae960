package io.rediskit.queue;

/**
 * One group of a queue with {@link QueueGroups groups}, as Redis counts it now: from
 * {@link RedisQueue#groupStats(int)}.
 *
 * @param group the group's name
 * @param ready its messages due and waiting for their turn
 * @param inFlight its messages delivered and not settled yet (among the in-flight messages looked at: see
 * {@link RedisQueue#groupStats(int)})
 */
public record GroupStats(String group, long ready, long inFlight) {

}

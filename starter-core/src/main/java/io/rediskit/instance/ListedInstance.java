package io.rediskit.instance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One instance as the registry lists it, judged by the server's clock.
 *
 * @param info who it is
 * @param lastHeartbeat when Redis last heard from it (server time)
 * @param sinceHeartbeat how long ago that was, by the server's clock when listed
 * @param alive whether its last heartbeat is recent enough ({@link InstanceRegistry#goneAfter()}); a killed
 * instance stays listed, not alive, for the registry's retention
 * @param runs what it runs, as of its last heartbeat
 * @param holds what it held at its last heartbeat whose lease has not ended since, with the lease left now
 * @param heldOmitted holds it left out of its report to bound its size
 * @param leads the roles it led at its last heartbeat (a gone instance's are listed too: its lease on a role ends
 * as its holds' do, and another instance's heartbeat then reports the role)
 * @param semaphores the semaphores it used, as of its last heartbeat (none from a version that did not report them)
 * @param latches the names of the latches it used, likewise
 * @param caches the names of the caches it used, likewise
 */
public record ListedInstance(InstanceInfo info, Instant lastHeartbeat, Duration sinceHeartbeat, boolean alive,
		List<String> runs, List<InstanceHold> holds, int heldOmitted, List<InstanceLeadership> leads,
		List<InstanceSemaphore> semaphores, List<String> latches, List<String> caches) {
}

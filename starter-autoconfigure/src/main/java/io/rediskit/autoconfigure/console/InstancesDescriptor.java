package io.rediskit.autoconfigure.console;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.rediskit.instance.InstanceHold;
import io.rediskit.instance.InstanceLeadership;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.instance.ListedInstance;
import org.jspecify.annotations.Nullable;

/**
 * The cluster-wide view the console shows on its Instances page: every instance heard from by heartbeat
 * ({@link InstanceRegistry}), alive or gone, and every lock, permit and role they hold, each with the instance
 * that holds it. Durations are milliseconds (the page writes them in human units), instants ISO-8601 text.
 *
 * @param heartbeat whether the instance that answered keeps a heartbeat; without, it lists nothing
 * @param self the id of the instance that answered
 * @param intervalMillis how often instances send their heartbeat
 * @param goneAfterMillis how long after its last heartbeat an instance is shown as gone
 * @param instances the instances, alive first, then by name
 * @param holds what they hold, by name
 * @param leaders who leads each role, by role (a role whose leader is gone is listed until that leader's entry is
 * forgotten, or another instance reports the role)
 */
public record InstancesDescriptor(boolean heartbeat, String self, long intervalMillis, long goneAfterMillis,
		List<InstanceDescriptor> instances, List<HoldDescriptor> holds, List<LeaderDescriptor> leaders) {

	/** The view of an instance that keeps no heartbeat. */
	static final InstancesDescriptor NO_HEARTBEAT = new InstancesDescriptor(false, "", 0, 0, List.of(), List.of(), List.of());

	/**
	 * The view of a registry's list.
	 * @param registry this instance's registry
	 * @param listed what it listed
	 * @param shown whether the names of holds show: given in code, they may be data the application received, which
	 * the console shows only with {@code redis-kit.console.show-payloads}, as the {@code rediskitlock} endpoint does
	 * under its {@code show-values}
	 * @return the view
	 */
	public static InstancesDescriptor of(InstanceRegistry registry, List<ListedInstance> listed, boolean shown) {
		String self = registry.self().id();
		List<InstanceDescriptor> instances = new ArrayList<>();
		List<HoldDescriptor> holds = new ArrayList<>();
		Map<String, LeaderDescriptor> leaders = new TreeMap<>();
		for (ListedInstance instance : listed) {
			for (InstanceLeadership lead : instance.leads()) {
				LeaderDescriptor leader = new LeaderDescriptor(lead.role(), instance.info().id(),
						instance.info().displayName(), instance.alive(), lead.term(), lead.since().toString());
				// Terms only grow: of two reports of one role (a gone leader's last, its successor's), the later term.
				leaders.merge(lead.role(), leader, (one, two) -> (one.term() >= two.term()) ? one : two);
			}
			instances.add(InstanceDescriptor.of(instance, self));
			for (InstanceHold hold : instance.holds()) {
				holds.add(new HoldDescriptor(hold.name(), hold.kind(), instance.info().id(),
						instance.info().displayName(), instance.alive(), hold.leaseRemaining().toMillis(),
						hold.fencingToken(), hold.owner(), hold.heldSince().toString()));
			}
		}
		instances.sort(Comparator.comparing((InstanceDescriptor each) -> !each.alive())
			.thenComparing(InstanceDescriptor::name));
		holds.sort(Comparator.comparing(HoldDescriptor::name).thenComparing(HoldDescriptor::instance));
		return new InstancesDescriptor(true, self, registry.interval().toMillis(), registry.goneAfter().toMillis(), instances,
				shown ? holds : holds.stream().map(HoldDescriptor::hidden).toList(), new ArrayList<>(leaders.values()));
	}

	/**
	 * One instance.
	 * @param id its random id, new at every start
	 * @param name the name an operator recognises: {@code application@host:pid}
	 * @param application the application's name
	 * @param host the host name
	 * @param pid the process id
	 * @param version the application's version
	 * @param startedAt when it started, ISO-8601
	 * @param lastHeartbeat when Redis last heard from it (server time), ISO-8601
	 * @param sinceHeartbeatMillis how long ago that was
	 * @param alive whether it sent a heartbeat recently enough
	 * @param self whether it is the instance that answered
	 * @param runs what it runs: {@code queue:<name>}, {@code recurring:<job>}, {@code scheduled:<job>},
	 * {@code leads:<role>} or {@code candidate:<role>}
	 * @param holds how many holds it reported that have not ended
	 * @param heldOmitted holds it left out of its report to bound its size
	 */
	public record InstanceDescriptor(String id, String name, String application, String host, long pid, String version,
			String startedAt, String lastHeartbeat, long sinceHeartbeatMillis, boolean alive, boolean self,
			List<String> runs, int holds, int heldOmitted) {

		static InstanceDescriptor of(ListedInstance instance, String self) {
			return new InstanceDescriptor(instance.info().id(), instance.info().displayName(),
					instance.info().application(), instance.info().host(), instance.info().pid(),
					instance.info().version(), instance.info().startedAt().toString(),
					instance.lastHeartbeat().toString(), instance.sinceHeartbeat().toMillis(), instance.alive(),
					instance.info().id().equals(self), instance.runs(), instance.holds().size(),
					instance.heldOmitted());
		}

	}

	/**
	 * One lock, permit or role held, as its holder reported it at its last heartbeat.
	 * @param name the lock's name, {@code null} when not shown
	 * @param kind {@code single}, {@code redlock}, {@code semaphore}, {@code fair} or {@code readwrite}
	 * @param instanceId the holding instance's id
	 * @param instance the holding instance's name, {@code application@host:pid}
	 * @param instanceAlive whether the holding instance is alive (a gone one's holds end with their leases)
	 * @param leaseRemainingMillis the lease left now, unless renewed
	 * @param fencingToken the hold's fencing token
	 * @param owner how the instance holds it: {@code thread:<id>} or {@code lease}
	 * @param heldSince when it was first acquired (the holder's clock), ISO-8601
	 */
	public record HoldDescriptor(@Nullable String name, String kind, String instanceId, String instance,
			boolean instanceAlive, long leaseRemainingMillis, long fencingToken, String owner, String heldSince) {

		HoldDescriptor hidden() {
			return new HoldDescriptor(null, this.kind, this.instanceId, this.instance, this.instanceAlive,
					this.leaseRemainingMillis, this.fencingToken, this.owner, this.heldSince);
		}

	}

	/**
	 * Who leads one role, as the leader reported it at its last heartbeat.
	 * @param role the role
	 * @param instanceId the leader's id
	 * @param instance the leader's name, {@code application@host:pid}
	 * @param instanceAlive whether the leader is alive (a gone leader's role is taken over once its lease ends)
	 * @param term the term
	 * @param since when it took the role (its clock), ISO-8601
	 */
	public record LeaderDescriptor(String role, String instanceId, String instance, boolean instanceAlive, long term,
			String since) {
	}

}

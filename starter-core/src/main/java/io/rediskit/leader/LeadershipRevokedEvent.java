package io.rediskit.leader;

/**
 * This instance stopped being the leader of a role: the term {@link #term()} is over for it, and why is
 * {@link #reason()}. When the lease was in doubt ({@link Reason#LEASE_LOST}) the event comes before another
 * instance can be granted the role, unless this JVM was paused meanwhile (it then comes as the JVM resumes,
 * late, and {@link LeaderElection#isLeader()} has said {@code false} since the lease's margin ran out).
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final Reason reason;

	/**
	 * @param source the election
	 * @param role the role
	 * @param term the term that ended
	 * @param reason why it ended
	 */
	public LeadershipRevokedEvent(LeaderElection source, String role, long term, Reason reason) {
		super(source, role, term);
		this.reason = reason;
	}

	/** @return why this instance is no longer the leader */
	public Reason reason() {
		return this.reason;
	}

	@Override
	public String toString() {
		return "LeadershipRevokedEvent[role=" + role() + ", term=" + term() + ", reason=" + this.reason + "]";
	}

	/** Why a leadership ended. */
	public enum Reason {

		/** The leader gave it up: {@link LeaderElection#yieldLeadership()}. */
		YIELDED,

		/**
		 * The lease could not be confirmed in time (Redis unreachable or paused, renewals late) or was found
		 * taken over: given up before it could run out.
		 */
		LEASE_LOST,

		/** The election stopped, with the application or {@link LeaderElection#stop()}. */
		STOPPED

	}

}

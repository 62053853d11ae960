package io.rediskit.leader;

/**
 * This instance became the leader of a role, for the term {@link #term()}.
 */
public class LeadershipGrantedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	/**
	 * @param source the election
	 * @param role the role
	 * @param term the new term
	 */
	public LeadershipGrantedEvent(LeaderElection source, String role, long term) {
		super(source, role, term);
	}

}

package io.rediskit.leader;

/**
 * Told when this instance is granted or loses the leadership of a role; both methods do nothing unless
 * overridden. Calls come on the scheduler's thread, one at a time per role, granted before revoked for each term;
 * keep them short (start or stop the leader's work elsewhere), and never block on Redis in them.
 */
public interface LeadershipListener {

	/**
	 * This instance became the leader.
	 * @param event the role and the new term
	 */
	default void onGranted(LeadershipGrantedEvent event) {
	}

	/**
	 * This instance is no longer the leader.
	 * @param event the role, the term that ended and why
	 */
	default void onRevoked(LeadershipRevokedEvent event) {
	}

}

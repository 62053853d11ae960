package io.rediskit.leader;

import org.springframework.context.ApplicationEvent;

/**
 * A change of leadership of one role on this instance, published by {@link LeaderElection}: a
 * {@link LeadershipGrantedEvent} when it became the leader, a {@link LeadershipRevokedEvent} when it stopped
 * being one. Both are Spring {@link ApplicationEvent}s (the starter publishes them to the context, so an
 * {@code @EventListener} method receives them) and are passed to every {@link LeadershipListener}.
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final String role;

	private final long term;

	/**
	 * @param source the election
	 * @param role the role
	 * @param term the leadership term: the fencing token of the lock that backs it
	 */
	protected LeadershipEvent(LeaderElection source, String role, long term) {
		super(source);
		this.role = role;
		this.term = term;
	}

	/** @return the role whose leadership changed */
	public String role() {
		return this.role;
	}

	/**
	 * The term of the leadership granted or revoked: the fencing token of the lock behind it, strictly greater
	 * than every earlier term of the role. Pass it with every write the leader makes and have the resource reject
	 * terms lower than the highest it has seen.
	 * @return the term
	 */
	public long term() {
		return this.term;
	}

	@Override
	public LeaderElection getSource() {
		return (LeaderElection) super.getSource();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[role=" + this.role + ", term=" + this.term + "]";
	}

}

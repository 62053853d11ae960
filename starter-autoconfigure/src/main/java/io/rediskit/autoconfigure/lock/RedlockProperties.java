package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.lock.RedlockSpec;

/**
 * Redlock settings, under {@code redis-kit.lock.redlock}: the independent Redis servers a
 * {@link io.rediskit.lock.RedlockRegistry} locks on, and how it times its rounds. Redlock is configured when
 * {@code nodes} is not empty. Checked when the Redlock registry is built, by the rules of
 * {@link io.rediskit.lock.RedlockSpec} and {@link RedlockNodeUrl}.
 */
public class RedlockProperties extends LockLeaseProperties {

	/**
	 * Redis URLs of the independent servers (masters that do not replicate each other), such as
	 * redis://:secret@redis-1:6379/0; use an odd number, 3 or 5.
	 */
	private List<String> nodes = new ArrayList<>();

	/**
	 * Longest wait for one node's reply in a round, much smaller than any lease. A round ends within twice this
	 * plus 2 s; a synchronous call waits for one attempt or release at most four times this plus 5 s.
	 */
	private Duration nodeTimeout = Duration.ofMillis(100);

	/**
	 * Longest wait for a connection to a node; the first call to a node connects on the calling thread.
	 */
	private Duration connectTimeout = Duration.ofSeconds(2);

	/**
	 * How long the driver keeps a request a node has not answered; a round is decided after the node timeout.
	 */
	private Duration commandTimeout = Duration.ofSeconds(5);

	/**
	 * Part of the lease allowed for clock drift between client and nodes, from 0 to 0.5.
	 */
	private double clockDriftFactor = 0.01;

	/**
	 * Fixed clock-drift allowance added to every lease's.
	 */
	private Duration clockDriftMargin = Duration.ofMillis(2);

	/**
	 * Shortest pause before another attempt after one failed.
	 */
	private Duration retryDelay = Duration.ofMillis(50);

	/**
	 * Longest random extra pause before another attempt, doubled after each split round in a row, up to 8 times.
	 */
	private Duration retryJitter = Duration.ofMillis(100);

	public List<String> getNodes() {
		return this.nodes;
	}

	public void setNodes(List<String> nodes) {
		this.nodes = nodes;
	}

	public Duration getNodeTimeout() {
		return this.nodeTimeout;
	}

	public void setNodeTimeout(Duration nodeTimeout) {
		this.nodeTimeout = nodeTimeout;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public double getClockDriftFactor() {
		return this.clockDriftFactor;
	}

	public void setClockDriftFactor(double clockDriftFactor) {
		this.clockDriftFactor = clockDriftFactor;
	}

	public Duration getClockDriftMargin() {
		return this.clockDriftMargin;
	}

	public void setClockDriftMargin(Duration clockDriftMargin) {
		this.clockDriftMargin = clockDriftMargin;
	}

	public Duration getRetryDelay() {
		return this.retryDelay;
	}

	public void setRetryDelay(Duration retryDelay) {
		this.retryDelay = retryDelay;
	}

	public Duration getRetryJitter() {
		return this.retryJitter;
	}

	public void setRetryJitter(Duration retryJitter) {
		this.retryJitter = retryJitter;
	}

	/** @return whether any node is configured */
	public boolean isConfigured() {
		return !this.nodes.isEmpty();
	}

}

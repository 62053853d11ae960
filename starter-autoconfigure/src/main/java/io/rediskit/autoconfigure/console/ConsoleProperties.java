package io.rediskit.autoconfigure.console;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Web console settings, under {@code redis-kit.console}. The console is off unless enabled, read-only unless
 * actions are enabled, and with Spring Security present every page needs {@link #getRole() role} and every action
 * {@link #getActionRole() action-role}. Checked when the console is built: a bad value fails startup naming the
 * property.
 */
@ConfigurationProperties(prefix = "redis-kit.console", ignoreUnknownFields = false)
public class ConsoleProperties {

	/**
	 * Whether to serve the web console.
	 */
	private boolean enabled = false;

	/**
	 * Path the console is served at, starting with "/" and not ending with one, such as /redis-kit.
	 */
	private String path = "/redis-kit";

	/**
	 * Actions: redrive, delete and purge dead letters, pause and resume queues, evict cache entries and clear caches.
	 */
	private final Actions actions = new Actions();

	/**
	 * Whether the application's values are shown: dead-letter payloads and headers, queue groups' names,
	 * leaderboard members, recent items, the names of held locks, semaphores and latches. Off since they may hold
	 * personal data; hidden, only their sizes, counts, scores and groups show.
	 */
	private boolean showPayloads = false;

	/**
	 * Role (without the ROLE_ prefix) a user needs to see the console, when Spring Security is present.
	 */
	private String role = "REDIS_KIT_VIEWER";

	/**
	 * Role (without the ROLE_ prefix) a user needs to take actions, when Spring Security is present.
	 */
	private String actionRole = "REDIS_KIT_OPERATOR";

	/**
	 * How often the console samples the redis-kit meters for its charts, from 1s to 1h.
	 */
	private Duration sampleInterval = Duration.ofSeconds(5);

	/**
	 * How many samples of each meter the console keeps in memory, from 2 to 10000.
	 */
	private int samples = 120;

	/**
	 * Dead letters per page of the Queues page, from 1 to 500.
	 */
	private int deadLettersPerPage = 20;

	/**
	 * Heartbeat of this instance in Redis, for the console's cluster-wide views.
	 */
	private final Heartbeat heartbeat = new Heartbeat();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPath() {
		return this.path;
	}

	public void setPath(String path) {
		this.path = path;
	}

	public Actions getActions() {
		return this.actions;
	}

	public boolean isShowPayloads() {
		return this.showPayloads;
	}

	public void setShowPayloads(boolean showPayloads) {
		this.showPayloads = showPayloads;
	}

	public String getRole() {
		return this.role;
	}

	public void setRole(String role) {
		this.role = role;
	}

	public String getActionRole() {
		return this.actionRole;
	}

	public void setActionRole(String actionRole) {
		this.actionRole = actionRole;
	}

	public Duration getSampleInterval() {
		return this.sampleInterval;
	}

	public void setSampleInterval(Duration sampleInterval) {
		this.sampleInterval = sampleInterval;
	}

	public int getSamples() {
		return this.samples;
	}

	public void setSamples(int samples) {
		this.samples = samples;
	}

	public int getDeadLettersPerPage() {
		return this.deadLettersPerPage;
	}

	public void setDeadLettersPerPage(int deadLettersPerPage) {
		this.deadLettersPerPage = deadLettersPerPage;
	}

	public Heartbeat getHeartbeat() {
		return this.heartbeat;
	}

	/**
	 * The heartbeat every instance with the console enabled keeps in Redis (served or not: a worker without a web
	 * server is listed too), so that any instance's console lists the live instances and what each holds.
	 */
	public static class Heartbeat {

		/**
		 * Whether this instance keeps a heartbeat in Redis while redis-kit.console.enabled is true.
		 */
		private boolean enabled = true;

		/**
		 * How often this instance sends its heartbeat, from 1s to 1m; an instance silent for three intervals is
		 * shown as gone.
		 */
		private Duration interval = Duration.ofSeconds(5);

		/**
		 * How long a silent instance stays listed as gone, at least three intervals and at most 1d.
		 */
		private Duration retention = Duration.ofMinutes(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getInterval() {
			return this.interval;
		}

		public void setInterval(Duration interval) {
			this.interval = interval;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * What the console lets an operator change; off unless enabled.
	 */
	public static class Actions {

		/**
		 * Whether the console offers actions (redrive, delete and purge dead letters, pause and resume queues, pause,
		 * resume and run recurring jobs, evict cache entries and clear caches); read-only otherwise.
		 */
		private boolean enabled = false;

		/**
		 * Whether actions are offered although Spring Security is not on the class path, so that anyone who
		 * reaches the console can take them; logged as a warning at startup.
		 */
		private boolean allowWithoutSecurity = false;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isAllowWithoutSecurity() {
			return this.allowWithoutSecurity;
		}

		public void setAllowWithoutSecurity(boolean allowWithoutSecurity) {
			this.allowWithoutSecurity = allowWithoutSecurity;
		}

	}

}

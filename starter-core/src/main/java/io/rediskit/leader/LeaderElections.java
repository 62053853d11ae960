package io.rediskit.leader;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.Locks;
import io.rediskit.lock.RedlockRegistry;
import io.rediskit.support.Background;
import io.rediskit.support.Listeners;
import io.rediskit.support.Names;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * This instance's candidacies, one {@link LeaderElection} per role, over the locks of one entry point ({@link
 * LockRegistry} on one deployment, or {@link RedlockRegistry} on a majority of independent servers): the roles
 * configured at startup and those the application joins later with {@link #elect(String)}. Started and stopped
 * with the application (a {@link SmartLifecycle} in the phase after the registry's, so that leaders give their
 * roles up while the registry still runs); elections joined while it runs start at once. Their ticks run on the
 * {@link Background} given with {@link #setBackground} (the starter gives the application's shared one); without one,
 * on threads of their own made at the first start ({@link Background#standalone(String)}) and closed on stop.
 * <p>
 * The instance name is what {@link LeaderElection#currentLeader()} and the actuator show as the leader; by
 * default the JVM's {@code pid@host}.
 */
public class LeaderElections implements SmartLifecycle {

	/** The lifecycle phase: started after the lock registry, stopped before it. */
	public static final int PHASE = LockRegistry.PHASE + 1;

	/** Default {@link #retryInterval()}: a candidate tries once a second. */
	public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(1);

	private final Locks registry;

	private final String instance;

	private final Duration retryInterval;

	private final Listeners<LeadershipListener> listeners;

	private final ConcurrentMap<String, LeaderElection> elections = new ConcurrentHashMap<>();

	private final ThrottledLog outages = new ThrottledLog(LogFactory.getLog(LeaderElection.class),
			Duration.ofSeconds(10), "Leader election cannot reach Redis; candidates try again on every tick");

	private final ReentrantLock threads = new ReentrantLock();

	private @Nullable Background given;

	private @Nullable Background own;

	private volatile boolean running;

	/**
	 * Elections with the default instance name and retry interval.
	 * @param registry the lock registry whose locks back the roles: {@link LockRegistry} or {@link RedlockRegistry}
	 * @param listeners told of every grant and revocation, in order
	 */
	public LeaderElections(Locks registry, List<? extends LeadershipListener> listeners) {
		this(registry, listeners, defaultInstanceName(), DEFAULT_RETRY_INTERVAL);
	}

	/**
	 * @param registry the lock registry whose locks back the roles: {@link LockRegistry} or {@link RedlockRegistry}
	 * @param listeners told of every grant and revocation, in order
	 * @param instance the name this instance goes by: not empty, without {@code /}
	 * @param retryInterval how often a candidate that does not lead tries to; capped at a sixth of the registry's
	 * watchdog timeout, which is the leadership's lease
	 * @throws IllegalArgumentException naming the argument when it is out of range
	 */
	public LeaderElections(Locks registry, List<? extends LeadershipListener> listeners, String instance,
			Duration retryInterval) {
		this.registry = Objects.requireNonNull(registry, "registry");
		Objects.requireNonNull(instance, "instance");
		if (instance.isEmpty() || instance.indexOf('/') >= 0) {
			throw new IllegalArgumentException("instance must not be empty nor contain '/', was '" + instance + "'");
		}
		// ':t' in an owner id marks a thread owner: colons in the name are replaced so that it never reads as one.
		this.instance = instance.replace(':', '_');
		Objects.requireNonNull(retryInterval, "retryInterval");
		if (retryInterval.isNegative() || retryInterval.toMillis() < 1) {
			throw new IllegalArgumentException("retryInterval must be at least 1ms, was " + retryInterval);
		}
		this.retryInterval = retryInterval;
		this.listeners = Listeners.of("leader", listeners);
	}

	/**
	 * A name unique to this JVM that follows {@link io.rediskit.support.Names}' rule: its host and process id,
	 * such as {@code web-7f9c-4121}, each character outside the rule replaced by {@code -}.
	 * @return the host and process id of this JVM
	 */
	public static String defaultInstanceName() {
		return defaultInstanceName("");
	}

	/**
	 * A name unique to this JVM that follows {@link io.rediskit.support.Names}' rule: the application's name, its host
	 * and its process id, such as {@code billing-web-7f9c-4121}, each character outside the rule replaced by
	 * {@code -}; the application's name and host are shortened, never the process id, to fit 64 characters.
	 * @param application the application's name, or empty
	 * @return the name
	 */
	public static String defaultInstanceName(String application) {
		// pid@host, as the JVM knows it without a name lookup.
		String jvm = ManagementFactory.getRuntimeMXBean().getName();
		String host = jvm.substring(jvm.indexOf('@') + 1);
		String pid = Long.toString(ProcessHandle.current().pid());
		String prefix = (application.isEmpty() ? "" : application + "-") + host;
		prefix = prefix.replaceAll("[^A-Za-z0-9_-]", "-");
		prefix = prefix.substring(0, Math.min(prefix.length(), 63 - pid.length()));
		if (prefix.isEmpty() || !Character.isLetterOrDigit(prefix.charAt(0))) {
			prefix = "i" + prefix.substring(Math.min(1, prefix.length()));
		}
		return prefix + "-" + pid;
	}

	/**
	 * Joins the election of a role, or returns the candidacy that has joined it; it starts at once when these
	 * elections run.
	 * @param role the role, such as {@code billing-scheduler}
	 * @return this instance's candidacy
	 * @throws IllegalArgumentException when the role breaks the rule of configured names
	 * ({@link io.rediskit.support.Names#requireValid}), as the roles of {@code redis-kit.lock.leader.roles} do
	 */
	public LeaderElection elect(String role) {
		Names.requireValid("Leader role", role);
		LeaderElection election = this.elections.computeIfAbsent(role, (name) -> new LeaderElection(name,
				this.registry.getLock("leader", name), this.instance, this.listeners, this.retryInterval, this::schedule,
				this.outages));
		if (this.running) {
			election.start();
		}
		return election;
	}

	/** @return every candidacy of this instance, by role */
	public List<LeaderElection> elections() {
		List<LeaderElection> all = new ArrayList<>(this.elections.values());
		all.sort(Comparator.comparing(LeaderElection::role));
		return all;
	}

	/** @return the name this instance goes by */
	public String instance() {
		return this.instance;
	}

	/** @return how often a candidate tries */
	public Duration retryInterval() {
		return this.retryInterval;
	}

	/**
	 * Gives the threads the elections' ticks run on (tasks that never block on Redis). Set it before the elections
	 * start; they leave it running.
	 * @param background the application's, shared by every primitive, or {@code null} for threads of their own
	 * ({@link Background#standalone(String)}), made at the first start and closed on stop
	 */
	public void setBackground(@Nullable Background background) {
		this.threads.lock();
		try {
			this.given = background;
		}
		finally {
			this.threads.unlock();
		}
	}

	/** Starts every election joined so far; later ones start as they are joined. */
	@Override
	public void start() {
		this.running = true;
		this.elections.values().forEach(LeaderElection::start);
	}

	/** Stops every election: each leader revokes itself ({@code STOPPED}) and frees its lock. */
	@Override
	public void stop() {
		this.running = false;
		this.elections.values().forEach(LeaderElection::stop);
		this.threads.lock();
		try {
			if (this.own != null) {
				this.own.close();
				this.own = null;
			}
		}
		finally {
			this.threads.unlock();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		return background().schedule(task, Duration.ofNanos(delayNanos));
	}

	private Background background() {
		this.threads.lock();
		try {
			if (this.given != null) {
				return this.given;
			}
			if (this.own == null) {
				this.own = Background.standalone("leader");
			}
			return this.own;
		}
		finally {
			this.threads.unlock();
		}
	}

	/** Where an election's ticks run: throws once the threads no longer take tasks. */
	@FunctionalInterface
	interface Scheduler {

		ScheduledFuture<?> schedule(Runnable task, long delayNanos);

	}

}

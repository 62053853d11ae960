package io.rediskit.instance;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.ThrottledLog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The live instances of an application on one Redis deployment, kept by heartbeat. Every
 * {@link #interval() interval}, on the shared {@link Background}'s scheduler and without blocking it, this
 * instance writes its {@link InstanceInfo} and its {@link InstanceReport} (what it runs, holds and leads) into one
 * hash, and its heartbeat's server time into a sorted set; {@link #list()} reads every instance heard from within
 * the {@link #retention() retention}, and calls one whose last heartbeat is older than {@link #goneAfter()} (three
 * intervals) gone. A {@code kill -9}ed instance therefore shows as gone three intervals after its last heartbeat
 * and is forgotten after the retention; a clean {@link #close()} removes its entry at once.
 * <p>
 * <b>Holds.</b> The report lists the locks the instance holds with the lease left when it was sent; the list
 * shows each with the lease left now (server time), and leaves out those whose lease has ended since: the holds of
 * a killed instance vanish when their leases end, as their keys do. A hold taken or released since the last
 * heartbeat shows one interval late. The holder value a lock stores in Redis ({@code <registry id>:t<thread>}) is
 * not read: the instance that reports a hold is its holder.
 * <p>
 * <b>Keys.</b> {@code <prefix>instance:{all}} (the heartbeats) and {@code <prefix>instance:{all}:records}, one
 * hash slot, each expiring with the retention after the last heartbeat of any instance. One report is bounded to
 * {@value #MAX_HOLDS} holds (the rest counted), {@value #MAX_RUNS} labels and {@value #MAX_NAMES} semaphore,
 * {@value #MAX_NAMES} latch and {@value #MAX_NAMES} cache names.
 * <p>
 * <b>Semaphores and latches.</b> The report names the semaphores (with the total their handle gives) and latches the
 * instance uses, so that any instance can read their permits and counts in Redis and list them all. A record is
 * lines of {@code <key> <value>}; a key the reader does not know (a later version's) is passed over, so instances of
 * two versions read each other's records during a rolling upgrade.
 * <p>
 * <b>Caches.</b> The report names the caches the instance uses, so that an operator on another instance may act on
 * a cache only this one uses (their entries and invalidations are in Redis, shared by every instance).
 */
public final class InstanceRegistry implements AutoCloseable {

	/** The most holds one heartbeat reports; the rest are counted, not listed. */
	public static final int MAX_HOLDS = 500;

	/** The most labels of what it runs, and the most roles it leads, one heartbeat reports. */
	public static final int MAX_RUNS = 200;

	/** The most semaphores, the most latches, and the most caches, one heartbeat names: the first of its report's. */
	public static final int MAX_NAMES = 200;

	private static final Log logger = LogFactory.getLog(InstanceRegistry.class);

	static final LuaScript HEARTBEAT = LuaScript.fromClasspath("META-INF/redis-kit/scripts/instance/heartbeat.lua");

	static final LuaScript LIST = LuaScript.fromClasspath("META-INF/redis-kit/scripts/instance/list.lua");

	static final LuaScript LEAVE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/instance/leave.lua");

	private final ScriptExecutor scripts;

	private final InstanceInfo self;

	private final Duration interval;

	private final Duration retention;

	private final Supplier<InstanceReport> report;

	private final Background background;

	private final byte[] beatsKey;

	private final byte[] recordsKey;

	private final AtomicBoolean beating = new AtomicBoolean();

	private final ThrottledLog failures = new ThrottledLog(logger, Duration.ofSeconds(60),
			"Cannot send this instance's heartbeat to Redis");

	private @Nullable ScheduledFuture<?> task;

	private volatile @Nullable CompletionStage<?> firstBeat;

	/**
	 * Creates a registry; it sends nothing until {@link #start()}.
	 * @param scripts runs the heartbeat and list scripts
	 * @param keyNaming names the keys
	 * @param self this instance
	 * @param interval how often this instance sends its heartbeat, from 1 second
	 * @param retention how long a silent instance stays listed as gone, at least three intervals
	 * @param report what this instance runs and holds, asked at every heartbeat on the scheduler's thread: it must
	 * not block (no Redis call)
	 * @param background the threads the heartbeat runs on
	 */
	public InstanceRegistry(ScriptExecutor scripts, KeyNaming keyNaming, InstanceInfo self, Duration interval,
			Duration retention, Supplier<InstanceReport> report, Background background) {
		if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("interval must be at least 1s, was " + interval);
		}
		if (retention.compareTo(interval.multipliedBy(3)) < 0) {
			throw new IllegalArgumentException("retention must be at least three intervals, was " + retention);
		}
		this.scripts = Objects.requireNonNull(scripts, "scripts");
		this.self = Objects.requireNonNull(self, "self");
		this.interval = interval;
		this.retention = retention;
		this.report = Objects.requireNonNull(report, "report");
		this.background = Objects.requireNonNull(background, "background");
		this.beatsKey = bytes(keyNaming.key("instance", "all"));
		this.recordsKey = bytes(keyNaming.key("instance", "all", "records"));
	}

	/** @return this instance */
	public InstanceInfo self() {
		return this.self;
	}

	/** @return how often this instance sends its heartbeat */
	public Duration interval() {
		return this.interval;
	}

	/** @return how long after its last heartbeat an instance is shown as gone: three intervals */
	public Duration goneAfter() {
		return this.interval.multipliedBy(3);
	}

	/** @return how long a silent instance stays listed */
	public Duration retention() {
		return this.retention;
	}

	/**
	 * Starts the heartbeat: one now (sent without waiting; {@link #list()} waits for it, so that this instance lists
	 * itself from the start), then one every interval. Starting again does nothing.
	 */
	public synchronized void start() {
		if (this.task == null) {
			this.firstBeat = beat();
			this.task = this.background.scheduleAtFixedRate(this::beat, this.interval, this.interval);
		}
	}

	/**
	 * Stops the heartbeat and leaves this instance's entry as it is, to be shown as gone after
	 * {@link #goneAfter()}: what a crash looks like to the others. {@link #close()} removes the entry.
	 */
	public synchronized void stop() {
		if (this.task != null) {
			this.task.cancel(false);
			this.task = null;
		}
	}

	/** @return whether the heartbeat runs */
	public synchronized boolean isRunning() {
		return this.task != null;
	}

	/**
	 * Sends one heartbeat now and waits for it, at most the command timeout.
	 * @throws org.springframework.dao.DataAccessException if Redis fails or cannot be reached
	 */
	public void beatNow() {
		this.scripts.execute(HEARTBEAT, ReturnType.INTEGER, 2, heartbeatArguments());
	}

	// On the scheduler: sends without waiting; a heartbeat still in flight is not doubled.
	private CompletionStage<?> beat() {
		if (!this.beating.compareAndSet(false, true)) {
			return CompletableFuture.completedFuture(null);
		}
		try {
			return this.scripts.executeAsync(HEARTBEAT, ReturnType.INTEGER, 2, heartbeatArguments())
				.whenComplete((now, failure) -> {
					this.beating.set(false);
					if (failure != null) {
						this.failures.warn(failure, "the console of other instances shows this one as gone");
					}
				});
		}
		catch (RuntimeException ex) {
			this.beating.set(false);
			this.failures.warn(ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	private byte[][] heartbeatArguments() {
		InstanceReport now;
		try {
			now = this.report.get();
		}
		catch (RuntimeException ex) {
			// A report that fails still lets the instance say it lives.
			this.failures.warn(ex, "the heartbeat reports nothing run or held");
			now = InstanceReport.EMPTY;
		}
		return new byte[][] { this.beatsKey, this.recordsKey, bytes(this.self.id()), bytes(encode(this.self, now)),
				bytes(Long.toString(this.retention.toMillis())) };
	}

	/**
	 * Every instance heard from within the retention, oldest heartbeat first, alive or gone, by the server's
	 * clock; each with the holds it reported whose lease has not ended.
	 * @return the instances
	 * @throws org.springframework.dao.DataAccessException if Redis fails or cannot be reached
	 */
	public List<ListedInstance> list() {
		CompletionStage<?> first = this.firstBeat;
		if (first != null) {
			try {
				// Bounded by the command timeout; a failed first heartbeat was logged and is not this call's failure.
				first.toCompletableFuture().join();
			}
			catch (RuntimeException ex) {
				this.firstBeat = null;
			}
		}
		List<Object> reply = this.scripts.execute(LIST, ReturnType.MULTI, 2, this.beatsKey, this.recordsKey,
				bytes(Long.toString(this.retention.toMillis())));
		List<ListedInstance> listed = new ArrayList<>();
		if (reply == null || reply.isEmpty()) {
			return listed;
		}
		long now = (Long) reply.get(0);
		for (int i = 1; i + 2 < reply.size(); i += 3) {
			long beat = (Long) reply.get(i + 1);
			ListedInstance instance = decode(text(reply.get(i + 2)), beat, now, goneAfter().toMillis());
			if (instance != null) {
				listed.add(instance);
			}
		}
		return listed;
	}

	/**
	 * Stops the heartbeat and removes this instance's entry (a clean shutdown: it is not shown as gone). A
	 * failure to reach Redis is logged; the entry then lapses as a crashed instance's does.
	 */
	@Override
	public void close() {
		stop();
		try {
			this.scripts.execute(LEAVE, ReturnType.INTEGER, 2, this.beatsKey, this.recordsKey, bytes(this.self.id()));
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot remove this instance's heartbeat entry; it shows as gone until its retention ends ("
					+ ex.getMessage() + ")");
		}
	}

	static String encode(InstanceInfo info, InstanceReport report) {
		StringBuilder record = new StringBuilder(256);
		line(record, "id", info.id());
		line(record, "application", info.application());
		line(record, "host", info.host());
		line(record, "pid", Long.toString(info.pid()));
		line(record, "version", info.version());
		line(record, "started", Long.toString(info.startedAt().toEpochMilli()));
		report.runs().stream().limit(MAX_RUNS).forEach((run) -> line(record, "run", run));
		List<InstanceHold> holds = report.holds();
		for (InstanceHold hold : holds.subList(0, Math.min(holds.size(), MAX_HOLDS))) {
			record.append("hold ").append(part(hold.kind())).append(' ').append(hold.fencingToken()).append(' ')
				.append(Math.max(0, hold.leaseRemaining().toMillis())).append(' ').append(part(hold.owner()))
				.append(' ').append(hold.heldSince().toEpochMilli()).append(' ').append(part(hold.name())).append('\n');
		}
		report.leads().stream().limit(MAX_RUNS).forEach((lead) -> record.append("lead ").append(part(lead.role()))
			.append(' ').append(lead.term()).append(' ').append(lead.since().toEpochMilli()).append('\n'));
		// Lines an older version's decoder passes over, as any key it does not know.
		report.semaphores().stream().limit(MAX_NAMES).forEach((semaphore) -> record.append("semaphore ")
			.append(semaphore.total()).append(' ').append(part(semaphore.name())).append('\n'));
		report.latches().stream().limit(MAX_NAMES).forEach((latch) -> line(record, "latch", latch));
		report.caches().stream().limit(MAX_NAMES).forEach((cache) -> line(record, "cache", cache));
		if (holds.size() > MAX_HOLDS) {
			line(record, "omitted", Integer.toString(holds.size() - MAX_HOLDS));
		}
		return record.toString();
	}

	// Tolerant: a record that cannot be read (another version's) is left out rather than failing the list.
	static @Nullable ListedInstance decode(String record, long beat, long now, long goneAfterMillis) {
		String id = null;
		String application = "application";
		String host = "unknown-host";
		long pid = 0;
		String version = "";
		long started = 0;
		int omitted = 0;
		List<String> runs = new ArrayList<>();
		List<InstanceHold> holds = new ArrayList<>();
		List<InstanceLeadership> leads = new ArrayList<>();
		List<InstanceSemaphore> semaphores = new ArrayList<>();
		List<String> latches = new ArrayList<>();
		List<String> caches = new ArrayList<>();
		try {
			for (String line : record.split("\n")) {
				int space = line.indexOf(' ');
				if (space < 0) {
					continue;
				}
				String key = line.substring(0, space);
				String value = line.substring(space + 1);
				switch (key) {
					case "id" -> id = unpart(value);
					case "application" -> application = unpart(value);
					case "host" -> host = unpart(value);
					case "pid" -> pid = Long.parseLong(value);
					case "version" -> version = unpart(value);
					case "started" -> started = Long.parseLong(value);
					case "run" -> runs.add(unpart(value));
					case "omitted" -> omitted = Integer.parseInt(value);
					case "hold" -> {
						String[] parts = value.split(" ", 6);
						long leaseEnd = beat + Long.parseLong(parts[2]);
						if (leaseEnd > now) {
							holds.add(new InstanceHold(unpart(parts[0]), unpart(parts[5]), Long.parseLong(parts[1]),
									Duration.ofMillis(leaseEnd - now), unpart(parts[3]),
									Instant.ofEpochMilli(Long.parseLong(parts[4]))));
						}
					}
					case "lead" -> {
						String[] parts = value.split(" ", 3);
						leads.add(new InstanceLeadership(unpart(parts[0]), Long.parseLong(parts[1]),
								Instant.ofEpochMilli(Long.parseLong(parts[2]))));
					}
					case "semaphore" -> {
						String[] parts = value.split(" ", 2);
						semaphores.add(new InstanceSemaphore(unpart(parts[1]), Integer.parseInt(parts[0])));
					}
					case "latch" -> latches.add(unpart(value));
					case "cache" -> caches.add(unpart(value));
					default -> {
						// A field of a later version.
					}
				}
			}
		}
		catch (RuntimeException ex) {
			return null;
		}
		if (id == null) {
			return null;
		}
		InstanceInfo info = new InstanceInfo(id, application, host, pid, version, Instant.ofEpochMilli(started));
		Duration since = Duration.ofMillis(Math.max(0, now - beat));
		return new ListedInstance(info, Instant.ofEpochMilli(beat), since, now - beat < goneAfterMillis,
				List.copyOf(runs),
				List.copyOf(holds), omitted, List.copyOf(leads), List.copyOf(semaphores), List.copyOf(latches),
				List.copyOf(caches));
	}

	private static void line(StringBuilder record, String key, String value) {
		record.append(key).append(' ').append(part(value)).append('\n');
	}

	private static String part(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	private static String unpart(String value) {
		return URLDecoder.decode(value, StandardCharsets.UTF_8);
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

package io.rediskit.autoconfigure.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.bloom.RedisBloomEndpoint;
import io.rediskit.autoconfigure.cache.RedisCacheEndpoint;
import io.rediskit.autoconfigure.counter.RedisCounterEndpoint;
import io.rediskit.autoconfigure.geo.RedisGeoEndpoint;
import io.rediskit.autoconfigure.id.RedisIdEndpoint;
import io.rediskit.autoconfigure.keys.RedisKeysEndpoint;
import io.rediskit.autoconfigure.lock.RedisLocksEndpoint;
import io.rediskit.autoconfigure.queue.RedisQueuesEndpoint;
import io.rediskit.autoconfigure.rank.RedisLeaderboardEndpoint;
import io.rediskit.autoconfigure.ratelimit.RedisRateLimitEndpoint;
import io.rediskit.autoconfigure.recent.RedisRecentItemsEndpoint;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.instance.InstanceSemaphore;
import io.rediskit.instance.ListedInstance;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.KeyTools;
import io.rediskit.lock.JobLock;
import io.rediskit.latch.LatchRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.queue.DeadLetter;
import io.rediskit.queue.QueueStats;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What the console's pages show: for every area, the typed descriptors its actuator endpoint returns (the console
 * builds the endpoint from the area's beans whether or not Actuator exposes it, so the two cannot drift), wrapped in
 * {@link Described} to say whether the area is configured; plus what only the console shows (the Redis round trip,
 * a scheduled job's lock state, a page of dead letters, the server's settings). Every area is optional: one whose
 * entry point is not a bean shows as not configured. Nothing here renders HTML; the page builds its DOM from these
 * values as text.
 * <p>
 * Its calls block (each is one or a few Redis round trips; the big-key report is paced and can take long), so the
 * WebFlux routes run them on a bounded elastic scheduler. The big-key report runs at most once at a time.
 */
final class ConsoleData {

	/**
	 * The most semaphores, and the most latches, the Locks page lists (each one read per refresh): this instance's,
	 * then those the other live instances name in their heartbeats.
	 */
	static final int MAX_NAMES_LISTED = 1000;

	/** The most dead letters a page can reach: {@code RedisQueue.deadLetters} lists from the oldest. */
	static final int MAX_DEAD_LETTERS_LISTED = 1000;

	private final ConsoleProperties properties;

	private final Sources sources;

	private final @Nullable ConsoleMetrics metrics;

	private final AtomicBoolean reportRunning = new AtomicBoolean();

	ConsoleData(ConsoleProperties properties, Sources sources, @Nullable ConsoleMetrics metrics) {
		this.properties = properties;
		this.sources = sources;
		this.metrics = metrics;
	}

	/** @return the Redis round trip, and each area with whether it is configured and how many it has */
	OverviewView overview() {
		List<AreaView> areas = List.of(
				area("locks", "Locks", this.sources.locks(), null, "rediskit.lock.acquire"),
				area("limiters", "Rate limiters", this.sources.limiters(), (e) -> e.names().size(),
						"rediskit.ratelimit.decisions"),
				area("queues", "Queues", this.sources.queues(), (e) -> e.names().size(), "rediskit.queue.delivered"),
				area("bloom", "Bloom filters", this.sources.bloom(), (e) -> e.names().size(),
						"rediskit.bloom.operations"),
				area("counters", "Counters and calendars", this.sources.counters(), RedisCounterEndpoint::size,
						"rediskit.counter.operations"),
				area("geo", "Geo indexes", this.sources.geo(), (e) -> e.names().size(), "rediskit.geo.operations"),
				area("caches", "Caches", this.sources.caches(), (e) -> e.caches().size(), "rediskit.cache.gets"),
				area("leaderboards", "Leaderboards", this.sources.leaderboards(), (e) -> e.names().size(),
						"rediskit.leaderboard.operations"),
				area("recent", "Recent items", this.sources.recentItems(), (e) -> e.names().size(),
						"rediskit.recentitems.operations"),
				area("ids", "Id generators", this.sources.ids(), (e) -> e.names().size(), "rediskit.id.blocks"),
				area("keys", "Key tools", this.sources.keyTools(), null, "rediskit.keys.deleted"));
		return new OverviewView(ping(), areas);
	}

	private static <E> AreaView area(String id, String title, Supplier<@Nullable E> source,
			@Nullable Function<E, Integer> count, String metric) {
		E endpoint = source.get();
		return new AreaView(id, title, endpoint != null, (endpoint != null && count != null) ? count.apply(endpoint) : null,
				metric);
	}

	private RedisView ping() {
		long start = System.nanoTime();
		try (RedisConnection connection = this.sources.connectionFactory().getConnection()) {
			connection.ping();
			return new RedisView(true, (System.nanoTime() - start) / 1_000_000.0, null);
		}
		catch (RuntimeException ex) {
			return new RedisView(false, null, String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * @return what the {@code rediskitlock} endpoint describes (every hold of this instance's lock family, the roles
	 * it stands for, the {@code @ScheduledLock} jobs it triggered, its semaphores with their permits and its latches
	 * with their counts), each job with its lock's state in Redis now; and, with a heartbeat, the semaphores and
	 * latches every live instance names in its heartbeat, read in Redis as the endpoint reads its own, each with the
	 * instances that use it; names given in code (of holds, semaphores and latches) only with
	 * {@code redis-kit.console.show-payloads}
	 */
	LocksView locks() {
		RedisLocksEndpoint endpoint = this.sources.locks().get();
		if (endpoint == null) {
			return new LocksView(false, List.of(), List.of(), List.of(), List.of(), List.of(), false);
		}
		boolean shown = this.properties.isShowPayloads();
		// With names: the heartbeats name the semaphores and latches, which are merged with this instance's by name,
		// and every row is hidden at the end.
		RedisLocksEndpoint.HeldLocksDescriptor view = endpoint.heldLocks(true);
		LockRegistry locks = this.sources.lockRegistry().get();
		List<ListedInstance> listed = liveInstances();
		Map<String, List<String>> semaphoreUsers = new TreeMap<>();
		Map<String, List<String>> latchUsers = new TreeMap<>();
		Map<String, RedisLocksEndpoint.SemaphoreDescriptor> semaphores = new TreeMap<>();
		view.semaphores().forEach((semaphore) -> semaphores.put(semaphore.name(), semaphore));
		Map<String, RedisLocksEndpoint.LatchDescriptor> latches = new TreeMap<>();
		view.latches().forEach((latch) -> latches.put(latch.name(), latch));
		SemaphoreRegistry semaphoreRegistry = this.sources.semaphoreRegistry().get();
		LatchRegistry latchRegistry = this.sources.latchRegistry().get();
		for (ListedInstance instance : listed) {
			String name = instance.info().displayName();
			for (InstanceSemaphore used : instance.semaphores()) {
				semaphoreUsers.computeIfAbsent(used.name(), (key) -> new ArrayList<>()).add(name);
				if (semaphoreRegistry != null && !semaphores.containsKey(used.name())
						&& semaphores.size() < MAX_NAMES_LISTED) {
					semaphores.put(used.name(),
							RedisLocksEndpoint.SemaphoreDescriptor.read(semaphoreRegistry, used.name(), used.total()));
				}
			}
			for (String used : instance.latches()) {
				latchUsers.computeIfAbsent(used, (key) -> new ArrayList<>()).add(name);
				if (latchRegistry != null && !latches.containsKey(used) && latches.size() < MAX_NAMES_LISTED) {
					latches.put(used, RedisLocksEndpoint.LatchDescriptor.read(latchRegistry, used));
				}
			}
		}
		return new LocksView(true, view.locks().stream().map((lock) -> lock.shown(shown)).toList(), view.leaders(),
				view.jobs().stream().map((job) -> ScheduledJobView.of(job, locks)).toList(),
				semaphores.values().stream().map((semaphore) -> new UsedSemaphore(semaphore.shown(shown),
						semaphoreUsers.getOrDefault(semaphore.name(), List.of()))).toList(),
				latches.values().stream().map((latch) -> new UsedLatch(latch.shown(shown),
						latchUsers.getOrDefault(latch.name(), List.of()))).toList(),
				!listed.isEmpty());
	}

	// The live instances by heartbeat, this one included; none without a heartbeat or when Redis does not answer
	// (the page then lists this instance's semaphores and latches only, as the endpoint does).
	private List<ListedInstance> liveInstances() {
		InstanceRegistry registry = this.sources.instances().get();
		if (registry == null) {
			return List.of();
		}
		try {
			return registry.list().stream().filter(ListedInstance::alive).toList();
		}
		catch (RuntimeException ex) {
			return List.of();
		}
	}

	/** @return every limiter with its policy, as the {@code rediskitratelimit} endpoint describes it */
	Described<RedisRateLimitEndpoint.LimitersDescriptor> limiters() {
		return Described.of(this.sources.limiters(), RedisRateLimitEndpoint::limiters);
	}

	/**
	 * Reads one key's state from its limiter without taking a permit.
	 * @param name a limiter the console lists
	 * @param key the key, as the application passes it to the limiter
	 * @return the key's state, as the {@code rediskitratelimit} endpoint describes it
	 * @throws IllegalArgumentException if the console lists no such limiter or the key is empty or too long (neither
	 * is echoed: both are user input)
	 */
	RedisRateLimitEndpoint.KeyStateDescriptor limiter(String name, String key) {
		return required(this.sources.limiters(), "No rate limiter is named so").keyState(name, key);
	}

	/**
	 * @return every queue's counts by state and every recurring job with its last and next slot, as the
	 * {@code rediskitqueue} endpoint describes them
	 */
	Described<RedisQueuesEndpoint.QueuesDescriptor> queues() {
		return Described.of(this.sources.queues(), RedisQueuesEndpoint::queues);
	}

	/**
	 * @param name a queue's name
	 * @param page the page of dead letters, from 0
	 * @return its counts, its batches in progress and busiest groups (as the {@code rediskitqueue} endpoint describes
	 * them), and one page of its dead letters, oldest first, payloads only when enabled
	 * @throws IllegalArgumentException if the console lists no such queue
	 */
	DeadLettersView queue(String name, int page) {
		RedisQueue<Object> queue = this.sources.queueHandles().apply(name);
		int size = this.properties.getDeadLettersPerPage();
		int from = Math.max(0, page) * size;
		List<RedisQueuesEndpoint.DeadLetterDescriptor> letters = new ArrayList<>();
		if (from < MAX_DEAD_LETTERS_LISTED) {
			List<DeadLetter> listed = queue.deadLetters(Math.min(from + size, MAX_DEAD_LETTERS_LISTED));
			for (DeadLetter letter : listed.subList(Math.min(from, listed.size()), listed.size())) {
				letters.add(RedisQueuesEndpoint.DeadLetterDescriptor.of(letter, this.properties.isShowPayloads()));
			}
		}
		QueueStats stats = queue.stats();
		return new DeadLettersView(name, RedisQueuesEndpoint.StatsDescriptor.of(stats, queue.isPaused()),
				RedisQueuesEndpoint.batches(queue, stats),
				RedisQueuesEndpoint.groups(queue, this.properties.isShowPayloads()), Math.max(0, page), size,
				MAX_DEAD_LETTERS_LISTED, this.properties.isShowPayloads(), letters);
	}

	/**
	 * @return Bloom filters (a growing one with its layers), counters, calendars, daily activities, geo indexes and
	 * id generators, as the {@code rediskitbloom}, {@code rediskitcounter}, {@code rediskitgeo} and
	 * {@code rediskitid} endpoints describe them
	 */
	StructuresView structures() {
		return new StructuresView(Described.of(this.sources.bloom(), RedisBloomEndpoint::filters),
				Described.of(this.sources.counters(), RedisCounterEndpoint::counters),
				Described.of(this.sources.geo(), RedisGeoEndpoint::indexes),
				Described.of(this.sources.ids(), RedisIdEndpoint::generators));
	}

	/**
	 * @return every leaderboard with its top members and every recent-items list with its trending items, as the
	 * {@code rediskitleaderboard} and {@code rediskitrecentitems} endpoints describe them: members and items only
	 * with {@code redis-kit.console.show-payloads}
	 */
	RankingsView rankings() {
		boolean shown = this.properties.isShowPayloads();
		return new RankingsView(
				Described.of(this.sources.leaderboards(), (endpoint) -> endpoint.leaderboards(shown)),
				Described.of(this.sources.recentItems(), (endpoint) -> endpoint.lists(shown)), shown);
	}

	/**
	 * @param name a leaderboard the page lists
	 * @param member a member, as the application names it
	 * @return the member's rank and score, or {@code ranked=false}
	 * @throws IllegalArgumentException for an unknown leaderboard or a member empty or too long
	 */
	RedisLeaderboardEndpoint.MemberRankDescriptor rank(String name, String member) {
		return required(this.sources.leaderboards(), "No leaderboard is named so").rank(name, member);
	}

	/**
	 * @param name a recent-items list the page lists
	 * @param user a user, as the application names them
	 * @return the user's items, most recent first (only with {@code redis-kit.console.show-payloads}), and their count
	 * @throws IllegalArgumentException for an unknown list or a user empty or too long
	 */
	RedisRecentItemsEndpoint.UserItemsDescriptor recent(String name, String user) {
		return required(this.sources.recentItems(), "No recent-items list is named so")
			.user(this.properties.isShowPayloads(), name, user);
	}

	/**
	 * @return every configured or used cache, as the {@code rediskitcache} endpoint describes it (settings, this
	 * instance's near cache)
	 */
	Described<List<RedisCacheEndpoint.CacheDescriptor>> caches() {
		return Described.of(this.sources.caches(), RedisCacheEndpoint::caches);
	}

	/**
	 * @return warnings about server settings that hurt redis-kit: lazyfree off (a big key's deletion blocks the
	 * server) and an eviction policy that can drop lock or queue keys; a setting that cannot be read (CONFIG
	 * renamed or denied) is said, not fatal
	 */
	KeySettingsView keySettings() {
		List<String> warnings = new ArrayList<>();
		String policy = null;
		try (RedisConnection connection = this.sources.connectionFactory().getConnection()) {
			Properties config = connection.serverCommands().getConfig("maxmemory-policy");
			policy = (config != null) ? config.getProperty("maxmemory-policy") : null;
		}
		catch (RuntimeException ex) {
			warnings.add("Cannot read maxmemory-policy (" + ex.getMessage()
					+ "); check that the eviction policy cannot drop lock or queue keys");
		}
		if (policy != null && policy.startsWith("allkeys-")) {
			warnings.add("maxmemory-policy is " + policy + ": under memory pressure Redis may evict any key, "
					+ "lock and queue keys included (a lock lost, messages gone); use noeviction or a volatile-* "
					+ "policy");
		}
		KeyTools keyTools = this.sources.keyTools().get();
		if (keyTools != null) {
			try {
				warnings.addAll(keyTools.lazyfreeWarnings());
			}
			catch (RuntimeException ex) {
				warnings.add("Cannot read lazyfree-lazy-* (" + ex.getMessage() + ")");
			}
		}
		return new KeySettingsView(policy, warnings, keyTools != null);
	}

	/**
	 * @return the big-key report with the settings of {@code redis-kit.keys.report}, paced as they say
	 * @throws IllegalStateException if a report is running already, or the key tools are not configured
	 */
	RedisKeysEndpoint.ReportDescriptor bigKeys() {
		KeyTools keyTools = this.sources.keyTools().get();
		BigKeyOptions options = this.sources.bigKeyOptions().get();
		if (keyTools == null || options == null) {
			throw new IllegalStateException("The key tools are not configured (redis-kit.keys.enabled)");
		}
		if (!this.reportRunning.compareAndSet(false, true)) {
			throw new IllegalStateException("A big-key report is running already; wait for it");
		}
		try {
			return RedisKeysEndpoint.ReportDescriptor.of(keyTools.bigKeys(options));
		}
		finally {
			this.reportRunning.set(false);
		}
	}

	/**
	 * @return every instance heard from by heartbeat and what each holds (the names of holds only with
	 * {@code redis-kit.console.show-payloads}); nothing when this instance keeps no heartbeat
	 * ({@code redis-kit.console.heartbeat.enabled=false})
	 */
	InstancesDescriptor instances() {
		InstanceRegistry registry = this.sources.instances().get();
		return (registry != null)
				? InstancesDescriptor.of(registry, registry.list(), this.properties.isShowPayloads())
				: InstancesDescriptor.NO_HEARTBEAT;
	}

	/**
	 * @param prefix the start of the meter names, such as {@code rediskit.queue.}
	 * @return the samples of each matching meter, or none without Micrometer
	 */
	MetricsView metrics(String prefix) {
		String wanted = prefix.startsWith(ConsoleMetrics.PREFIX) ? prefix : ConsoleMetrics.PREFIX;
		ConsoleMetrics metrics = this.metrics;
		return (metrics != null) ? new MetricsView(metrics.interval().toMillis(), metrics.series(wanted))
				: new MetricsView(null, List.of());
	}

	private static <E> E required(Supplier<@Nullable E> source, String absent) {
		E endpoint = source.get();
		if (endpoint == null) {
			throw new IllegalArgumentException(absent);
		}
		return endpoint;
	}

	/**
	 * What the console reads, each asked when a page is read (so that no registry is created early); each supplier
	 * answers {@code null} when its area is not configured.
	 * @param connectionFactory the application's connection
	 * @param locks the lock family's endpoint
	 * @param lockRegistry the single-node lock's registry, for the scheduled jobs' lock state
	 * @param limiters the rate limiters' endpoint
	 * @param queues the queues' endpoint
	 * @param queueHandles the queue of a name the console lists, else {@link IllegalArgumentException}
	 * @param bloom the Bloom filters' endpoint
	 * @param counters the counters' endpoint
	 * @param geo the geo indexes' endpoint
	 * @param caches the caches' endpoint
	 * @param leaderboards the leaderboards' endpoint
	 * @param recentItems the recent-items lists' endpoint
	 * @param ids the id generators' endpoint
	 * @param keyTools the key tools
	 * @param bigKeyOptions the big-key report's settings
	 * @param instances the registry of live instances
	 * @param semaphoreRegistry the semaphores, to read those other instances use
	 * @param latchRegistry the latches, to read those other instances use
	 */
	record Sources(RedisConnectionFactory connectionFactory, Supplier<@Nullable RedisLocksEndpoint> locks,
			Supplier<@Nullable LockRegistry> lockRegistry, Supplier<@Nullable RedisRateLimitEndpoint> limiters,
			Supplier<@Nullable RedisQueuesEndpoint> queues, Function<String, RedisQueue<Object>> queueHandles,
			Supplier<@Nullable RedisBloomEndpoint> bloom, Supplier<@Nullable RedisCounterEndpoint> counters,
			Supplier<@Nullable RedisGeoEndpoint> geo, Supplier<@Nullable RedisCacheEndpoint> caches,
			Supplier<@Nullable RedisLeaderboardEndpoint> leaderboards,
			Supplier<@Nullable RedisRecentItemsEndpoint> recentItems, Supplier<@Nullable RedisIdEndpoint> ids,
			Supplier<@Nullable KeyTools> keyTools,
			Supplier<@Nullable BigKeyOptions> bigKeyOptions, Supplier<@Nullable InstanceRegistry> instances,
			Supplier<@Nullable SemaphoreRegistry> semaphoreRegistry, Supplier<@Nullable LatchRegistry> latchRegistry) {
	}

	/**
	 * An area as its endpoint describes it.
	 * @param <D> the endpoint's descriptor
	 * @param configured whether the area is configured in this application
	 * @param descriptor what its endpoint returns, {@code null} when it is not configured
	 */
	record Described<D>(boolean configured, @Nullable D descriptor) {

		static <E, D> Described<D> of(Supplier<@Nullable E> source, Function<E, D> read) {
			E endpoint = source.get();
			return (endpoint != null) ? new Described<>(true, read.apply(endpoint)) : new Described<>(false, null);
		}

	}

	/**
	 * The Overview page.
	 * @param redis whether Redis answers
	 * @param areas each area
	 */
	record OverviewView(RedisView redis, List<AreaView> areas) {
	}

	/**
	 * Whether Redis answers a {@code PING}.
	 * @param up whether it answered
	 * @param pingMillis how long it took
	 * @param error why it did not answer
	 */
	record RedisView(boolean up, @Nullable Double pingMillis, @Nullable String error) {
	}

	/**
	 * One area on the Overview page.
	 * @param id the page's id
	 * @param title its title
	 * @param configured whether it is configured
	 * @param count how many it has, {@code null} when it has no count
	 * @param metric the meter of its main rate
	 */
	record AreaView(String id, String title, boolean configured, @Nullable Integer count, String metric) {
	}

	/**
	 * The Locks page.
	 * @param configured whether the lock is configured
	 * @param held this instance's holds, as the endpoint describes them
	 * @param leaders the roles this instance stands for
	 * @param jobs the scheduled jobs this instance triggered
	 * @param semaphores the semaphores this instance handed out and those the live instances use, by name, with
	 * their permits in Redis and the instances that use them
	 * @param latches the count-down latches likewise, with their counts in Redis
	 * @param clusterWide whether the semaphores and latches are those of every live instance (by heartbeat), not
	 * only this one's
	 */
	record LocksView(boolean configured, List<RedisLocksEndpoint.HeldLockDescriptor> held,
			List<RedisLocksEndpoint.LeaderDescriptor> leaders, List<ScheduledJobView> jobs,
			List<UsedSemaphore> semaphores, List<UsedLatch> latches, boolean clusterWide) {
	}

	/**
	 * One semaphore on the Locks page. The instances that use it stand beside it, not in a map by its name, so that
	 * they still show when its name is hidden.
	 * @param semaphore the semaphore, as the endpoint describes it
	 * @param users the live instances that use it, by heartbeat
	 */
	record UsedSemaphore(RedisLocksEndpoint.SemaphoreDescriptor semaphore, List<String> users) {
	}

	/**
	 * One count-down latch on the Locks page, with the instances that use it (as {@link UsedSemaphore}).
	 * @param latch the latch, as the endpoint describes it
	 * @param users the live instances that use it, by heartbeat
	 */
	record UsedLatch(RedisLocksEndpoint.LatchDescriptor latch, List<String> users) {
	}

	/**
	 * One scheduled job: this instance's record (the endpoint's descriptor), and its lock in Redis now, one script
	 * call per job (a keyed job has a lock per key, so no single state).
	 * @param job the record
	 * @param state {@code held}, {@code kept} or {@code free}; {@code null} for a keyed job or when Redis did not
	 * answer
	 * @param stateRemainingMillis how long the state lasts
	 * @param error why Redis did not answer
	 */
	record ScheduledJobView(RedisLocksEndpoint.JobDescriptor job, @Nullable String state,
			@Nullable Long stateRemainingMillis, @Nullable String error) {

		static ScheduledJobView of(RedisLocksEndpoint.JobDescriptor job, @Nullable LockRegistry locks) {
			if (locks == null || job.keyed()) {
				return new ScheduledJobView(job, null, null, null);
			}
			try {
				JobLock.State state = locks.getJobLock(job.name()).state();
				return new ScheduledJobView(job, state.status().name().toLowerCase(Locale.ROOT),
						state.remaining().toMillis(), null);
			}
			catch (RuntimeException ex) {
				return new ScheduledJobView(job, null, null, String.valueOf(ex.getMessage()));
			}
		}

	}

	/**
	 * One queue's page of dead letters.
	 * @param name the queue
	 * @param stats its counts, as the {@code rediskitqueue} endpoint describes them
	 * @param batches its batches in progress, at most 20, as the endpoint describes them
	 * @param groups its 20 groups with the most ready messages, with their limits, as the endpoint describes them
	 * @param page the page, from 0
	 * @param pageSize dead letters per page
	 * @param listedAtMost how far back pages reach
	 * @param showPayloads whether payloads and headers are shown
	 * @param deadLetters the page's dead letters, oldest first
	 */
	record DeadLettersView(String name, RedisQueuesEndpoint.StatsDescriptor stats,
			List<RedisQueuesEndpoint.BatchDescriptor> batches, List<RedisQueuesEndpoint.GroupDescriptor> groups,
			int page, int pageSize,
			int listedAtMost, boolean showPayloads, List<RedisQueuesEndpoint.DeadLetterDescriptor> deadLetters) {
	}

	/**
	 * The Bloom filters, counters, calendars and geo page.
	 * @param bloom the Bloom filters
	 * @param counters the unique counters, check-in calendars and daily activities
	 * @param geo the geo indexes
	 * @param ids the id generators
	 */
	record StructuresView(Described<RedisBloomEndpoint.FiltersDescriptor> bloom,
			Described<RedisCounterEndpoint.CountersDescriptor> counters,
			Described<RedisGeoEndpoint.IndexesDescriptor> geo, Described<RedisIdEndpoint.GeneratorsDescriptor> ids) {
	}

	/**
	 * The Leaderboards page.
	 * @param leaderboards the leaderboards
	 * @param recentItems the recent-items lists
	 * @param showValues whether members and items are shown ({@code redis-kit.console.show-payloads})
	 */
	record RankingsView(Described<RedisLeaderboardEndpoint.LeaderboardsDescriptor> leaderboards,
			Described<RedisRecentItemsEndpoint.RecentListsDescriptor> recentItems, boolean showValues) {
	}

	/**
	 * The server settings on the Keys page.
	 * @param maxmemoryPolicy the eviction policy, {@code null} when it could not be read
	 * @param warnings what hurts redis-kit
	 * @param reportAvailable whether the big-key report can run
	 */
	record KeySettingsView(@Nullable String maxmemoryPolicy, List<String> warnings, boolean reportAvailable) {
	}

	/**
	 * The samples kept of the meters.
	 * @param intervalMillis how often they are sampled, {@code null} without Micrometer
	 * @param series each meter's samples
	 */
	record MetricsView(@Nullable Long intervalMillis, List<Map<String, Object>> series) {
	}

}

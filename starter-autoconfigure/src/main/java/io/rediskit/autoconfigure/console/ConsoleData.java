package io.rediskit.autoconfigure.console;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rediskit.autoconfigure.bloom.BloomProperties;
import io.rediskit.autoconfigure.cache.RedisCacheEndpoint;
import io.rediskit.autoconfigure.counter.CounterProperties;
import io.rediskit.autoconfigure.geo.GeoProperties;
import io.rediskit.autoconfigure.lock.RedisLocksEndpoint;
import io.rediskit.autoconfigure.queue.QueueProperties;
import io.rediskit.autoconfigure.queue.RedisQueuesEndpoint;
import io.rediskit.autoconfigure.ratelimit.RateLimitProperties;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendarSpec;
import io.rediskit.bitmap.DailyActivity;
import io.rediskit.bitmap.DailyActivitySpec;
import io.rediskit.bloom.BloomFilterInfo;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.cache.RedisKitCache;
import io.rediskit.cache.RedisKitCacheManager;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoIndexSpec;
import io.rediskit.geo.GeoSharding;
import io.rediskit.instance.InstanceRegistry;
import io.rediskit.keys.BigKeyOptions;
import io.rediskit.keys.BigKeyReport;
import io.rediskit.keys.KeyTools;
import io.rediskit.lock.JobLock;
import io.rediskit.lock.LockRegistry;
import io.rediskit.queue.DeadLetter;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.QueueStats;
import io.rediskit.queue.RecurringJobInfo;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RedisQueue;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimitState;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What the console's pages show, read from the primitives' own APIs, as plain maps and lists the web layer
 * writes as JSON. Every primitive is optional: an area whose entry point is not a bean shows as not configured.
 * Nothing here renders HTML; the page builds its DOM from these values as text.
 * <p>
 * Its calls block (each is one or a few Redis round trips; the big-key report is paced and can take long), so the
 * WebFlux routes run them on a bounded elastic scheduler. The big-key report runs at most once at a time.
 */
final class ConsoleData {

	/** The most dead letters a page can reach: {@code RedisQueue.deadLetters} lists from the oldest. */
	static final int MAX_DEAD_LETTERS_LISTED = 1000;

	/** The longest key the limiter lookup takes: keys are identifiers, not documents. */
	static final int MAX_LOOKUP_KEY_LENGTH = 1024;

	private final ConsoleProperties properties;

	private final Beans beans;

	private final @Nullable ConsoleMetrics metrics;

	private final AtomicBoolean reportRunning = new AtomicBoolean();

	ConsoleData(ConsoleProperties properties, Beans beans, @Nullable ConsoleMetrics metrics) {
		this.properties = properties;
		this.beans = beans;
		this.metrics = metrics;
	}

	/** @return the Redis round trip, and each area with whether it is configured and how many it has */
	Map<String, Object> overview() {
		Map<String, Object> overview = new LinkedHashMap<>();
		overview.put("redis", ping());
		List<Map<String, Object>> areas = new ArrayList<>();
		areas.add(area("locks", "Locks", this.beans.lockEndpoint, null, "rediskit.lock.acquire"));
		areas.add(area("limiters", "Rate limiters", this.beans.limiters.getIfAvailable(),
				(registry) -> limiterNames(registry).size(), "rediskit.ratelimit.decisions"));
		areas.add(area("queues", "Queues", this.beans.queues.getIfAvailable(),
				(registry) -> queueNames(registry).size(), "rediskit.queue.delivered"));
		areas.add(area("bloom", "Bloom filters", this.beans.bloom.getIfAvailable(),
				(registry) -> bloomNames(registry).size(), "rediskit.bloom.operations"));
		areas.add(area("counters", "Unique counters", this.beans.counters.getIfAvailable(),
				(registry) -> counterNames(registry).size(), "rediskit.counter.operations"));
		areas.add(area("calendars", "Check-in calendars", this.beans.bitmaps.getIfAvailable(),
				(registry) -> calendarNames(registry).size(), "rediskit.counter.bitmap.operations"));
		areas.add(area("geo", "Geo indexes", this.beans.geo.getIfAvailable(),
				(registry) -> geoNames(registry).size(), "rediskit.geo.operations"));
		areas.add(area("caches", "Caches", this.beans.caches.getIfAvailable(),
				(manager) -> manager.getCacheNames().size(), "rediskit.cache.gets"));
		areas.add(area("keys", "Key tools", this.beans.keyTools.getIfAvailable(), null, "rediskit.keys.deleted"));
		overview.put("areas", areas);
		return overview;
	}

	private <R> Map<String, Object> area(String id, String title, @Nullable R registry,
			@Nullable Function<R, Integer> count, String metric) {
		Map<String, Object> area = new LinkedHashMap<>();
		area.put("id", id);
		area.put("title", title);
		area.put("configured", registry != null);
		area.put("count", (registry != null && count != null) ? count.apply(registry) : null);
		area.put("metric", metric);
		return area;
	}

	private Map<String, Object> ping() {
		Map<String, Object> redis = new LinkedHashMap<>();
		long start = System.nanoTime();
		try (RedisConnection connection = this.beans.connectionFactory.getConnection()) {
			connection.ping();
			redis.put("up", true);
			redis.put("pingMillis", (System.nanoTime() - start) / 1_000_000.0);
		}
		catch (RuntimeException ex) {
			redis.put("up", false);
			redis.put("error", String.valueOf(ex.getMessage()));
		}
		return redis;
	}

	/**
	 * @return what the {@code rediskitlock} endpoint describes (every hold of this instance's lock family, the roles
	 * it stands for, the {@code @ScheduledLock} jobs it triggered), each job with its lock's state in Redis now
	 */
	LocksView locks() {
		RedisLocksEndpoint endpoint = this.beans.lockEndpoint;
		if (endpoint == null) {
			return new LocksView(false, List.of(), List.of(), List.of());
		}
		RedisLocksEndpoint.HeldLocksDescriptor view = endpoint.heldLocks();
		LockRegistry locks = this.beans.locks.getIfAvailable();
		return new LocksView(true, view.locks(), view.leaders(),
				view.jobs().stream().map((job) -> ScheduledJobView.of(job, locks)).toList());
	}

	/**
	 * The Locks page.
	 * @param configured whether the lock is configured
	 * @param held this instance's holds, as the endpoint describes them
	 * @param leaders the roles this instance stands for
	 * @param jobs the scheduled jobs this instance triggered
	 */
	record LocksView(boolean configured, List<RedisLocksEndpoint.HeldLockDescriptor> held,
			List<RedisLocksEndpoint.LeaderDescriptor> leaders, List<ScheduledJobView> jobs) {
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

	/** @return every limiter with its current policy */
	Map<String, Object> limiters() {
		RateLimiterRegistry registry = this.beans.limiters.getIfAvailable();
		List<Map<String, Object>> limiters = new ArrayList<>();
		if (registry != null) {
			for (String name : limiterNames(registry)) {
				limiters.add(describe(name, () -> {
					RateLimitSpec spec = registry.get(name).spec();
					return map("algorithm", algorithm(spec),
							"limit", spec.limit(), "period", Durations.format(spec.period()), "burst", spec.burst(),
							"failurePolicy", spec.failurePolicy().name().toLowerCase(Locale.ROOT).replace('_', '-'));
				}));
			}
		}
		return map("configured", registry != null, "limiters", limiters);
	}

	/**
	 * Reads one key's state from its limiter without taking a permit ({@link RateLimiter#peek(String)}).
	 * @param name a limiter the console lists
	 * @param key the key, as the application passes it to the limiter
	 * @return the limiter, its algorithm and the key's limit, remaining permits, wait for one permit and time until
	 * full again
	 * @throws IllegalArgumentException if the console lists no such limiter or the key is empty or too long (neither
	 * is echoed: both are user input)
	 */
	Map<String, Object> limiter(String name, String key) {
		RateLimiterRegistry registry = this.beans.limiters.getIfAvailable();
		if (registry == null || !limiterNames(registry).contains(name)) {
			throw new IllegalArgumentException("No rate limiter is named so");
		}
		if (key.isEmpty() || key.length() > MAX_LOOKUP_KEY_LENGTH) {
			throw new IllegalArgumentException("key must have 1 to " + MAX_LOOKUP_KEY_LENGTH + " characters");
		}
		RateLimiter limiter = registry.get(name);
		RateLimitState state = limiter.peek(key);
		return map("name", name, "key", key, "algorithm", algorithm(limiter.spec()), "limit", state.limit(),
				"remaining", state.remaining(), "retryAfterMillis", state.retryAfter().toMillis(), "resetAfterMillis",
				state.resetAfter().toMillis());
	}

	private static String algorithm(RateLimitSpec spec) {
		return spec.algorithm().name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/** @return every queue's counts by state and spec, and every recurring job with its next slot */
	Map<String, Object> queues() {
		QueueRegistry registry = this.beans.queues.getIfAvailable();
		List<Map<String, Object>> queues = new ArrayList<>();
		if (registry != null) {
			for (String name : queueNames(registry)) {
				queues.add(describe(name, () -> {
					RedisQueue<Object> queue = registry.get(name, Object.class);
					Map<String, Object> described = stats(queue.stats());
					QueueSpec spec = queue.spec();
					described.put("maxDeliveries", spec.maxDeliveries());
					described.put("visibilityTimeout", Durations.format(spec.visibilityTimeout()));
					described.put("paused", queue.isPaused());
					return described;
				}));
			}
		}
		List<Map<String, Object>> recurring = new ArrayList<>();
		RecurringJobs jobs = this.beans.recurring.getIfAvailable();
		if (jobs != null) {
			for (RecurringJobInfo job : jobs.jobs()) {
				recurring.add(map("name", job.name(), "queue", job.spec().queue(), "schedule", RedisQueuesEndpoint.describeSchedule(job.spec()),
						"zone", job.spec().zone().getId(), "missedSlots", job.spec().missedSlots().name(), "lastSlot",
						(job.lastSlot() != null) ? job.lastSlot().toString() : null, "nextSlot",
						(job.nextSlot() != null) ? job.nextSlot().toString() : null));
			}
		}
		return map("configured", registry != null, "queues", queues, "recurring", recurring);
	}

	/**
	 * @param name a queue's name
	 * @param page the page of dead letters, from 0
	 * @return its counts and one page of its dead letters, oldest first, payloads only when enabled
	 * @throws IllegalArgumentException if the registry has no such queue
	 */
	Map<String, Object> queue(String name, int page) {
		RedisQueue<Object> queue = queueHandle(name);
		int size = this.properties.getDeadLettersPerPage();
		int from = Math.max(0, page) * size;
		Map<String, Object> described = stats(queue.stats());
		described.put("name", name);
		described.put("paused", queue.isPaused());
		described.put("page", Math.max(0, page));
		described.put("pageSize", size);
		List<Map<String, Object>> letters = new ArrayList<>();
		if (from < MAX_DEAD_LETTERS_LISTED) {
			List<DeadLetter> listed = queue.deadLetters(Math.min(from + size, MAX_DEAD_LETTERS_LISTED));
			for (DeadLetter letter : listed.subList(Math.min(from, listed.size()), listed.size())) {
				Map<String, Object> one = map("id", letter.id(), "reason", letter.reason(), "deadLetteredAt",
						letter.deadLetteredAt().toString(), "deliveries", letter.deliveries(), "payloadBytes",
						letter.payload().length());
				if (this.properties.isShowPayloads()) {
					// Headers are the message's data as much as its payload is (a tenant, a user id).
					one.put("payload", letter.payload());
					one.put("headers", letter.headers());
				}
				letters.add(one);
			}
		}
		described.put("deadLetters", letters);
		described.put("showPayloads", this.properties.isShowPayloads());
		described.put("listedAtMost", MAX_DEAD_LETTERS_LISTED);
		return described;
	}

	/**
	 * @param name a queue's name
	 * @return the queue, if the console lists it
	 * @throws IllegalArgumentException if it does not (the name is not echoed: it is user input)
	 */
	RedisQueue<Object> queueHandle(String name) {
		QueueRegistry registry = this.beans.queues.getIfAvailable();
		if (registry == null || !queueNames(registry).contains(name)) {
			throw new IllegalArgumentException("No queue is named so");
		}
		return registry.get(name, Object.class);
	}

	private static Map<String, Object> stats(QueueStats stats) {
		return map("delayed", stats.delayed(), "ready", stats.ready(), "inFlight", stats.inFlight(), "dead",
				stats.dead(), "oldestDueAgeMillis", stats.oldestDueAge().toMillis());
	}

	/**
	 * @return Bloom filters with sizing, fill and estimated false-positive rate; counters with their count;
	 * calendars; daily activities with today's active users; geo indexes with their members. Every count is one
	 * command on one key (PFCOUNT, BITCOUNT, ZCARD or HLEN), never a scan; check-in calendars keep a key per user
	 * and month, so they have no count that would not be a scan.
	 */
	Map<String, Object> structures() {
		Map<String, Object> structures = new LinkedHashMap<>();
		BloomFilterRegistry bloom = this.beans.bloom.getIfAvailable();
		List<Map<String, Object>> filters = new ArrayList<>();
		if (bloom != null) {
			for (String name : bloomNames(bloom)) {
				filters.add(describe(name, () -> {
					BloomFilterInfo info = bloom.get(name).info();
					return map("mode", info.mode().name().toLowerCase(Locale.ROOT), "bits", info.bits(), "hashes",
							info.hashes(), "shards", info.shards(), "expectedInsertions", info.expectedInsertions(),
							"falsePositiveRate", info.falsePositiveRate(), "approximateItems", info.approximateItems(),
							"fillRatio", info.fillRatio(), "estimatedFalsePositiveRate",
							info.estimatedFalsePositiveRate(), "overCapacity", info.overCapacity());
				}));
			}
		}
		structures.put("bloom", map("configured", bloom != null, "items", filters));
		UniqueCounterRegistry counters = this.beans.counters.getIfAvailable();
		List<Map<String, Object>> counted = new ArrayList<>();
		if (counters != null) {
			for (String name : counterNames(counters)) {
				counted.add(describe(name, () -> {
					UniqueCounterSpec spec = counters.get(name).spec();
					return map("bucket", spec.bucket().name().toLowerCase(Locale.ROOT), "zone", spec.zone().getId(),
							"retention", text(spec.retention()), "count", counters.get(name).count());
				}));
			}
		}
		structures.put("counters", map("configured", counters != null, "items", counted));
		BitmapRegistry bitmaps = this.beans.bitmaps.getIfAvailable();
		List<Map<String, Object>> calendars = new ArrayList<>();
		if (bitmaps != null) {
			for (String name : calendarNames(bitmaps)) {
				calendars.add(describe(name, () -> {
					CheckInCalendarSpec spec = bitmaps.calendar(name).spec();
					return map("zone", spec.zone().getId(), "retention", text(spec.retention()));
				}));
			}
		}
		structures.put("calendars", map("configured", bitmaps != null, "items", calendars));
		List<Map<String, Object>> activities = new ArrayList<>();
		if (bitmaps != null) {
			for (String name : activityNames(bitmaps)) {
				activities.add(describe(name, () -> {
					DailyActivity activity = bitmaps.activity(name);
					DailyActivitySpec spec = activity.spec();
					LocalDate today = LocalDate.now(spec.zone());
					// One BITCOUNT of today's bitmap: bounded by the spec's largest user id, never a scan.
					return map("zone", spec.zone().getId(), "retention", text(spec.retention()), "today",
							today.toString(), "activeToday", activity.count(today));
				}));
			}
		}
		structures.put("activities", map("configured", bitmaps != null, "items", activities));
		GeoIndexRegistry geo = this.beans.geo.getIfAvailable();
		List<Map<String, Object>> indexes = new ArrayList<>();
		if (geo != null) {
			for (String name : geoNames(geo)) {
				indexes.add(describe(name, () -> {
					GeoIndexSpec spec = geo.get(name).spec();
					// One ZCARD or HLEN; an index sharded by region lists its regions nowhere, so it is not counted.
					Long members = (spec.sharding() != GeoSharding.REGION) ? geo.get(name).size() : null;
					return map("sharding", spec.sharding().name().toLowerCase(Locale.ROOT).replace('_', '-'),
							"precision", spec.precision(), "memberTtl", text(spec.memberTtl()), "maxRadiusMeters",
							spec.maxRadiusMeters(), "maxLimit", spec.maxLimit(), "members", members);
				}));
			}
		}
		structures.put("geo", map("configured", geo != null, "items", indexes));
		return structures;
	}

	/**
	 * @return warnings about server settings that hurt redis-kit: lazyfree off (a big key's deletion blocks the
	 * server) and an eviction policy that can drop lock or queue keys; a setting that cannot be read (CONFIG
	 * renamed or denied) is said, not fatal
	 */
	Map<String, Object> keySettings() {
		List<String> warnings = new ArrayList<>();
		String policy = null;
		try (RedisConnection connection = this.beans.connectionFactory.getConnection()) {
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
		KeyTools keyTools = this.beans.keyTools.getIfAvailable();
		if (keyTools != null) {
			try {
				warnings.addAll(keyTools.lazyfreeWarnings());
			}
			catch (RuntimeException ex) {
				warnings.add("Cannot read lazyfree-lazy-* (" + ex.getMessage() + ")");
			}
		}
		return map("maxmemoryPolicy", policy, "warnings", warnings, "reportAvailable", keyTools != null);
	}

	/**
	 * @return the big-key report with the settings of {@code redis-kit.keys.report}, paced as they say
	 * @throws IllegalStateException if a report is running already, or the key tools are not configured
	 */
	BigKeyReport bigKeys() {
		KeyTools keyTools = this.beans.keyTools.getIfAvailable();
		BigKeyOptions options = this.beans.bigKeyOptions.getIfAvailable();
		if (keyTools == null || options == null) {
			throw new IllegalStateException("The key tools are not configured (redis-kit.keys.enabled)");
		}
		if (!this.reportRunning.compareAndSet(false, true)) {
			throw new IllegalStateException("A big-key report is running already; wait for it");
		}
		try {
			return keyTools.bigKeys(options);
		}
		finally {
			this.reportRunning.set(false);
		}
	}

	/**
	 * @return every instance heard from by heartbeat and what each holds; nothing when this instance keeps no
	 * heartbeat ({@code redis-kit.console.heartbeat.enabled=false})
	 */
	InstancesDescriptor instances() {
		InstanceRegistry registry = this.beans.instances.getIfAvailable();
		return (registry != null) ? InstancesDescriptor.of(registry, registry.list()) : InstancesDescriptor.NO_HEARTBEAT;
	}

	/**
	 * @return every configured or used cache, as the {@code rediskitcache} endpoint describes it (settings, this
	 * instance's near cache)
	 */
	CachesView caches() {
		RedisKitCacheManager manager = this.beans.caches.getIfAvailable();
		return (manager != null) ? new CachesView(true, new RedisCacheEndpoint(manager).caches())
				: new CachesView(false, List.of());
	}

	/**
	 * @param name a cache's name
	 * @return the cache, if the console lists it (it creates none)
	 * @throws IllegalArgumentException if it does not (the name is not echoed: it is user input)
	 */
	RedisKitCache cacheHandle(String name) {
		RedisKitCacheManager manager = this.beans.caches.getIfAvailable();
		if (manager == null || !manager.getCacheNames().contains(name)) {
			throw new IllegalArgumentException("No cache is named so");
		}
		return manager.getCache(name);
	}

	/**
	 * The caches the console shows.
	 * @param configured whether the application uses redis-kit's cache manager
	 * @param caches each cache, as the actuator endpoint describes it
	 */
	record CachesView(boolean configured, List<RedisCacheEndpoint.CacheDescriptor> caches) {
	}

	/**
	 * @param prefix the start of the meter names, such as {@code rediskit.queue.}
	 * @return the samples of each matching meter, or none without Micrometer
	 */
	Map<String, Object> metrics(String prefix) {
		String wanted = prefix.startsWith(ConsoleMetrics.PREFIX) ? prefix : ConsoleMetrics.PREFIX;
		return map("intervalMillis", (this.metrics != null) ? this.metrics.interval().toMillis() : null, "series",
				(this.metrics != null) ? this.metrics.series(wanted) : List.of());
	}

	private Set<String> limiterNames(RateLimiterRegistry registry) {
		return names(registry.names(), this.beans.rateLimitProperties.getIfAvailable(),
				RateLimitProperties::getLimiters);
	}

	private Set<String> queueNames(QueueRegistry registry) {
		return names(registry.names(), this.beans.queueProperties.getIfAvailable(), QueueProperties::getQueues);
	}

	private Set<String> bloomNames(BloomFilterRegistry registry) {
		return names(registry.names(), this.beans.bloomProperties.getIfAvailable(), BloomProperties::getFilters);
	}

	private Set<String> counterNames(UniqueCounterRegistry registry) {
		return names(registry.names(), this.beans.counterProperties.getIfAvailable(),
				CounterProperties::getCounters);
	}

	private Set<String> calendarNames(BitmapRegistry registry) {
		return names(registry.calendarNames(), this.beans.counterProperties.getIfAvailable(),
				CounterProperties::getCalendars);
	}

	private Set<String> activityNames(BitmapRegistry registry) {
		return names(registry.activityNames(), this.beans.counterProperties.getIfAvailable(),
				CounterProperties::getActivities);
	}

	private Set<String> geoNames(GeoIndexRegistry registry) {
		return names(registry.names(), this.beans.geoProperties.getIfAvailable(), GeoProperties::getIndexes);
	}

	// The configured names and those created in code so far: a configured handle may not exist yet.
	private static <P> Set<String> names(Collection<String> used, @Nullable P properties,
			Function<P, Map<String, ?>> configured) {
		Set<String> names = new TreeSet<>(used);
		if (properties != null) {
			names.addAll(configured.apply(properties).keySet());
		}
		return names;
	}

	// One item's failure (Redis down, a spec conflict) shows on its row, not as a broken page.
	private static Map<String, Object> describe(String name, Supplier<Map<String, Object>> details) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("name", name);
		try {
			described.putAll(details.get());
		}
		catch (RuntimeException ex) {
			described.put("error", String.valueOf(ex.getMessage()));
		}
		return described;
	}

	private static @Nullable String text(@Nullable Duration duration) {
		return (duration != null) ? Durations.format(duration) : null;
	}

	static Map<String, Object> map(@Nullable Object... keysAndValues) {
		Map<String, Object> map = new LinkedHashMap<>();
		for (int i = 0; i < keysAndValues.length; i += 2) {
			map.put((String) keysAndValues[i], keysAndValues[i + 1]);
		}
		return map;
	}

	/**
	 * The beans the console reads, each optional but the connection factory.
	 * @param lockEndpoint the lock family's descriptors, when the lock is configured
	 */
	record Beans(RedisConnectionFactory connectionFactory, ObjectProvider<LockRegistry> locks,
			@Nullable RedisLocksEndpoint lockEndpoint, ObjectProvider<RateLimiterRegistry> limiters,
			ObjectProvider<QueueRegistry> queues, ObjectProvider<RecurringJobs> recurring,
			ObjectProvider<BloomFilterRegistry> bloom, ObjectProvider<UniqueCounterRegistry> counters,
			ObjectProvider<BitmapRegistry> bitmaps, ObjectProvider<GeoIndexRegistry> geo,
			ObjectProvider<KeyTools> keyTools, ObjectProvider<BigKeyOptions> bigKeyOptions,
			ObjectProvider<RateLimitProperties> rateLimitProperties, ObjectProvider<QueueProperties> queueProperties,
			ObjectProvider<BloomProperties> bloomProperties, ObjectProvider<CounterProperties> counterProperties,
			ObjectProvider<GeoProperties> geoProperties, ObjectProvider<InstanceRegistry> instances,
			ObjectProvider<RedisKitCacheManager> caches) {
	}

}

package io.rediskit.benchmarks;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.rediskit.benchmarks.CpuMeter.Cost;
import io.rediskit.testsupport.RedisServerProcess;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The server and the two clients every {@link Benchmark} of one run shares, and where it reports trouble.
 * <p>
 * The server is the one {@code REDIS_URL} names ({@code redis://host:port}, no password, no TLS) or, without
 * it, a {@code redis-server} started for this run on a free loopback port and stopped by {@link #close()}.
 * redis-kit talks to it through a {@link LettuceConnectionFactory} with Spring Data Redis defaults (one
 * shared connection) and a 10 second command timeout; Redisson through a single-server client with its own
 * defaults (a connection pool). Both sides keep their defaults on purpose: the comparison is what an
 * application gets out of the box.
 */
public final class BenchmarkContext implements AutoCloseable {

	/** The name every benchmark gives redis-kit's figures. */
	public static final String REDIS_KIT = "redis-kit";

	/**
	 * The names the benchmarks give a same-script floor: bare Lettuce running redis-kit's own scripts
	 * ({@code lettuce-evalsha} in the lock family and the rate limiters, {@code floor} elsewhere).
	 */
	public static final List<String> FLOOR_NAMES = List.of("floor", "lettuce-evalsha");

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	/** Whether a scenario of this run has run its unmeasured first round (only the first one does). */
	private boolean firstRoundRun;

	/** While a load must not count: its processor time is not recorded. */
	private volatile boolean unmeasured;

	private final BenchmarkOptions options;

	private final @Nullable RedisServerProcess server;

	private final String host;

	private final int port;

	private final LettuceConnectionFactory connectionFactory;

	// Every load's label, in the order the loads ran, with the processor time per operation of each of its windows.
	private final Map<String, List<Cost>> cpu = Collections.synchronizedMap(new LinkedHashMap<>());

	private final RedissonClient redisson;

	private final String redisVersion;

	private final AtomicInteger anomalies = new AtomicInteger();

	private final List<String> noisy = new ArrayList<>();

	private BenchmarkContext(BenchmarkOptions options, @Nullable RedisServerProcess server, String host, int port,
			LettuceConnectionFactory connectionFactory, RedissonClient redisson, String redisVersion) {
		this.options = options;
		this.server = server;
		this.host = host;
		this.port = port;
		this.connectionFactory = connectionFactory;
		this.redisson = redisson;
		this.redisVersion = redisVersion;
	}

	/**
	 * Connects both clients to the server of {@code REDIS_URL}, or to one started here when it is unset.
	 * @param options the options of this run
	 * @return the context; close it to disconnect and stop a server started here
	 */
	public static BenchmarkContext open(BenchmarkOptions options) {
		String url = System.getenv("REDIS_URL");
		RedisServerProcess server = null;
		String host;
		int port;
		if (url != null && !url.isBlank()) {
			URI uri = parseRedisUrl(url);
			host = uri.getHost();
			port = (uri.getPort() != -1) ? uri.getPort() : 6379;
		}
		else {
			server = RedisServerProcess.start();
			host = server.host();
			port = server.port();
		}
		LettuceConnectionFactory connectionFactory = null;
		try {
			connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
					LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
			connectionFactory.afterPropertiesSet();
			connectionFactory.start();
			String version = serverVersion(connectionFactory);
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			RedissonClient redisson = Redisson.create(config);
			return new BenchmarkContext(options, server, host, port, connectionFactory, redisson, version);
		}
		catch (RuntimeException ex) {
			if (connectionFactory != null) {
				connectionFactory.destroy();
			}
			if (server != null) {
				server.close();
			}
			throw ex;
		}
	}

	/** @return the options of this run */
	public BenchmarkOptions options() {
		return this.options;
	}

	/** @return the version the server reports, such as {@code 7.0.15} */
	public String redisVersion() {
		return this.redisVersion;
	}

	/** @return the connections redis-kit runs on */
	public RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	/** @return the Redisson client, with its defaults */
	public RedissonClient redisson() {
		return this.redisson;
	}

	/**
	 * Records the processor time per operation of one load's window, by the load's label ({@code lock.uncontended
	 * redis-kit}, {@code cache.hits redis-kit near}).
	 * @param label the load's label
	 * @param cost the window's processor time per operation
	 */
	void recordCpu(String label, Cost cost) {
		if (this.unmeasured) {
			return;
		}
		this.cpu.computeIfAbsent(label, (name) -> Collections.synchronizedList(new ArrayList<>())).add(cost);
	}

	/**
	 * @param scenario a scenario whose loads were labelled {@code <scenario> <library>}; the scenario may have
	 * spaces of its own ({@code bloom.contains 1M items}), the library is what follows it
	 * @return the processor time per operation of each library's rounds of it, as {@link ConcurrentLoad} measured
	 * them
	 */
	public CpuFigures cpu(String scenario) {
		CpuFigures figures = new CpuFigures();
		String prefix = scenario + " ";
		synchronized (this.cpu) {
			this.cpu.forEach((label, costs) -> {
				if (label.startsWith(prefix)) {
					List.copyOf(costs).forEach((cost) -> figures.add(label.substring(prefix.length()), cost));
				}
			});
		}
		if (figures.isEmpty()) {
			throw new IllegalArgumentException("No load ran for " + scenario);
		}
		return figures;
	}

	/**
	 * Prepares one measured run with this run's thread count, warmup and duration.
	 * @param label names the run in progress messages and anomaly reports, such as
	 * {@code lock.contended redis-kit}
	 * @return a load that has not started yet
	 */
	public ConcurrentLoad load(String label) {
		return load(label, this.options.warmup(), this.options.duration());
	}

	/**
	 * Prepares one run with this run's thread count and a warmup and duration of its own, for scenarios whose
	 * length is part of what they measure.
	 * @param label names the run in progress messages and anomaly reports
	 * @param warmup how long the threads run before the window opens, possibly zero
	 * @param duration how long the window stays open
	 * @return a load that has not started yet
	 */
	public ConcurrentLoad load(String label, Duration warmup, Duration duration) {
		return new ConcurrentLoad(label, this.options.threads(), warmup, duration, this);
	}

	/**
	 * Opens a Lettuce connection of its own to the server, on the client behind {@link #connectionFactory()},
	 * for a library that takes a Lettuce connection rather than a Spring one, or for measuring Lettuce bare.
	 * @return a connection with byte array keys and values; the caller closes it
	 */
	public StatefulRedisConnection<byte[], byte[]> connectLettuce() {
		return ((RedisClient) this.connectionFactory.getRequiredNativeClient()).connect(ByteArrayCodec.INSTANCE);
	}

	/** @return one line naming the server, the JVM and the options, printed before any result */
	public String describe() {
		String where = (this.server != null) ? "started here from " + this.server.binary().path() : "REDIS_URL";
		return "Redis " + this.redisVersion + " at " + this.host + ":" + this.port + " (" + where + "), Java "
				+ Runtime.version() + " (" + System.getProperty("java.vm.name") + "), "
				+ Runtime.getRuntime().availableProcessors() + " cores; " + this.options.threads() + " threads, warmup "
				+ BenchmarkOptions.format(this.options.warmup()) + ", measure "
				+ BenchmarkOptions.format(this.options.duration()) + " per library, scenario and round, "
				+ this.options.rounds() + " rounds (median reported)";
	}

	/** @return the server, the JVM and the options, as the fields every result file starts with */
	public Map<String, Object> environment() {
		Map<String, Object> environment = new LinkedHashMap<>();
		environment.put("redisVersion", this.redisVersion);
		environment.put("javaVersion", Runtime.version().toString());
		environment.put("javaVm", System.getProperty("java.vm.name"));
		environment.put("availableProcessors", Runtime.getRuntime().availableProcessors());
		environment.put("threads", this.options.threads());
		environment.put("rounds", this.options.rounds());
		environment.put("warmupSeconds", this.options.warmup().toMillis() / 1000.0);
		environment.put("durationSeconds", this.options.duration().toMillis() / 1000.0);
		return environment;
	}

	/**
	 * Tells what is going on, on standard error so that standard output keeps only results.
	 * @param message the message
	 */
	public void progress(String message) {
		System.err.println(message);
	}

	/**
	 * Reports something that makes a result doubtful: an operation that failed, threads that never finished,
	 * a lock held by two threads at once. Printed at once on standard error; the run exits non-zero at the end.
	 * @param message what happened, naming the scenario and library
	 * @param cause the first failure of its kind, printed with its stack trace, or {@code null}
	 */
	public void reportAnomaly(String message, @Nullable Throwable cause) {
		this.anomalies.incrementAndGet();
		System.err.println("WARNING " + message);
		if (cause != null) {
			cause.printStackTrace();
		}
	}

	/**
	 * Measures how far the rounds of one figure disagree, and remembers the figure for the summary at the end of
	 * the run when they disagree by more than {@value Spread#NOISY_ABOVE} of its median. Every figure that is a
	 * median of rounds goes through here.
	 * @param figure names the scenario and library, such as {@code lock.uncontended redis-kit}
	 * @param rounds the figure of each round, in the order they ran
	 * @return the spread, whose median is the figure to report
	 */
	public Spread spread(String figure, Collection<? extends Number> rounds) {
		Spread spread = Spread.of(rounds);
		if (spread.noisy()) {
			synchronized (this.noisy) {
				this.noisy.add(figure + " (" + spread + ")");
			}
		}
		return spread;
	}

	/**
	 * Runs one scenario for several libraries in {@link BenchmarkOptions#rounds() rounds}, in the
	 * {@link #roundOrder round order} (the floor next to redis-kit), and measures each library's
	 * {@link #spread(String, Collection) spread}: the one loop for a benchmark whose figure per run is a single
	 * number.
	 * @param scenario names the scenario, such as {@code bloom.add.single}; a figure is named by it and the library
	 * @param libraries the libraries, in the order the line reports them
	 * @param measurement one run of a library, returning its figure
	 * @return each library's spread, whose median is its figure, in the order given
	 * @throws Exception if a run fails
	 */
	public Map<String, Spread> rounds(String scenario, List<String> libraries, Measurement measurement)
			throws Exception {
		Map<String, Spread> spreads = new LinkedHashMap<>();
		medianRounds(scenario, libraries, measurement::measure, Double::doubleValue)
			.forEach((library, median) -> spreads.put(library, median.spread()));
		return spreads;
	}

	/**
	 * {@link #rounds(String, List, Measurement)} for a run that measures more than one number (latencies, counts):
	 * the whole median round of each library, picked by its figure.
	 * @param scenario names the scenario; a figure is named by it and the library
	 * @param libraries the libraries, in the order the lines report them
	 * @param run one run of a library
	 * @param figure the figure of a run, which picks the median and whose spread is measured
	 * @param <R> what one run measured
	 * @return each library's median round, in the order given
	 * @throws Exception if a run fails
	 */
	public <R> Map<String, MedianRound<R>> medianRounds(String scenario, List<String> libraries, Run<R> run,
			ToDoubleFunction<R> figure) throws Exception {
		Map<String, List<R>> runs = new LinkedHashMap<>();
		for (String library : libraries) {
			runs.put(library, new ArrayList<>());
		}
		if (!this.firstRoundRun && !this.options.warmup().isZero()) {
			// The run's first scenario runs every library once, unmeasured: the first load of a JVM also pays for
			// what no later one does (classes loaded, the heap grown, the driver's paths compiled), and in a
			// measured round that fell on whichever library ran first (the read lock's first round read 0.74 to
			// 0.87 of its floor in four runs of five, 2026-11-29).
			this.firstRoundRun = true;
			this.unmeasured = true;
			try {
				for (String library : roundOrder(libraries, 0)) {
					progress(scenario + " " + library + ": the run's first load, not measured");
					run.run(library);
				}
			}
			finally {
				this.unmeasured = false;
			}
		}
		for (int round = 0; round < this.options.rounds(); round++) {
			for (String library : roundOrder(libraries, round)) {
				runs.get(library).add(run.run(library));
			}
		}
		Map<String, MedianRound<R>> medians = new LinkedHashMap<>();
		runs.forEach((library, all) -> medians.put(library, MedianRound.of(this, scenario + " " + library, all, figure)));
		return medians;
	}

	/**
	 * The order the libraries of a scenario run in, in one round: rotating (each round starts with the next one, so
	 * that none always runs on a machine another just warmed or loaded), with the floor, if there is one, always
	 * right before or after {@value #REDIS_KIT}, alternately. The two then run on the same machine as nearly as a
	 * run allows, and their figures can be {@link Spread#paired paired} round by round: a slower minute of the host
	 * moves both, not their ratio.
	 * @param libraries the scenario's libraries; the floor is the one named as in {@link #FLOOR_NAMES}
	 * @param round the round, from 0
	 * @return every library once, in the order to run them
	 */
	public static List<String> roundOrder(List<String> libraries, int round) {
		String floor = libraries.contains(REDIS_KIT)
				? libraries.stream().filter(FLOOR_NAMES::contains).findFirst().orElse(null) : null;
		List<List<String>> units = new ArrayList<>();
		for (String library : libraries) {
			if (floor == null || !(library.equals(floor) || library.equals(REDIS_KIT))) {
				units.add(List.of(library));
			}
			else if (library.equals(REDIS_KIT)) {
				units.add((round % 2 == 0) ? List.of(REDIS_KIT, floor) : List.of(floor, REDIS_KIT));
			}
		}
		List<String> order = new ArrayList<>(libraries.size());
		for (int i = 0; i < units.size(); i++) {
			order.addAll(units.get((round + i) % units.size()));
		}
		return order;
	}

	/**
	 * @return the figures whose rounds disagreed by more than {@value Spread#NOISY_ABOVE} of their median so far,
	 * each named with its rounds
	 */
	public List<String> noisyFigures() {
		synchronized (this.noisy) {
			return List.copyOf(this.noisy);
		}
	}

	/** @return how many anomalies were reported so far */
	public int anomalies() {
		return this.anomalies.get();
	}

	/** Shuts both clients down and stops the server if it was started here. */
	@Override
	public void close() {
		try {
			this.redisson.shutdown();
		}
		finally {
			try {
				this.connectionFactory.destroy();
			}
			finally {
				if (this.server != null) {
					this.server.close();
				}
			}
		}
	}

	/**
	 * One run of one library in {@link #rounds(String, List, Measurement)}.
	 */
	@FunctionalInterface
	public interface Measurement {

		/**
		 * Runs the scenario once for a library.
		 * @param library the library
		 * @return its figure, such as operations per second
		 * @throws Exception if the run fails
		 */
		double measure(String library) throws Exception;

	}

	/**
	 * One run of one library in {@link #medianRounds(String, List, Run, ToDoubleFunction)}.
	 * @param <R> what the run measured
	 */
	@FunctionalInterface
	public interface Run<R> {

		/**
		 * Runs the scenario once for a library.
		 * @param library the library
		 * @return what it measured
		 * @throws Exception if the run fails
		 */
		R run(String library) throws Exception;

	}

	private static URI parseRedisUrl(String url) {
		URI uri;
		try {
			uri = URI.create(url.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("REDIS_URL must look like redis://host:port, was '" + url + "'", ex);
		}
		if (!"redis".equals(uri.getScheme()) || uri.getHost() == null || uri.getUserInfo() != null) {
			throw new IllegalArgumentException(
					"REDIS_URL must look like redis://host:port (no password, no TLS), was '" + url + "'");
		}
		return uri;
	}

	private static String serverVersion(RedisConnectionFactory connectionFactory) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			Properties info = connection.serverCommands().info("server");
			String version = (info != null) ? info.getProperty("redis_version") : null;
			return (version != null) ? version : "unknown";
		}
	}

}

package io.rediskit.benchmarks.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.benchmarks.Benchmark;
import io.rediskit.benchmarks.BenchmarkContext;
import io.rediskit.benchmarks.ConcurrentLoad;
import io.rediskit.benchmarks.CpuMeter;
import io.rediskit.benchmarks.JsonWriter;
import io.rediskit.benchmarks.LatencySample;
import io.rediskit.benchmarks.Spread;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@code web}: what a rate limiter on a route costs per HTTP request. A minimal WebFlux application (Reactor
 * Netty) and a minimal Spring MVC one (Tomcat), from {@link WebApplications}, each started in this JVM on a free
 * loopback port once per {@link Variant}, are called over {@code --threads} HTTP/1.1 connections (one
 * {@link HttpClient}, one blocking call at a time per worker thread) for the warmup and the measured window.
 * <ul>
 * <li>{@code web.<stack>.none}: {@code GET /hello}, no limiter;</li>
 * <li>{@code web.<stack>.limited}: {@code GET /limited}, behind limiter {@value WebApplications#LIMITER}
 * (sliding window, {@value #LIMIT} per second, keyed by the client's IP address: every call is a decision on
 * one key, and none is rejected), by {@code @RateLimited} on the MVC controller and a {@code WebFilter} of the
 * benchmark's own on WebFlux;</li>
 * <li>{@code web.<stack>.rules}: {@code GET /hello} behind the same limiter by a route rule from properties
 * ({@code redis-kit.rate-limit.web.rules}, key {@code ip}): redis-kit's servlet filter or {@code WebFilter},
 * with the success headers on.</li>
 * </ul>
 * Each line gives requests per second (median round), the latency at p50 and p99 (all rounds), and for a
 * limited variant its throughput as a share of {@code none} on the same stack: the cost of deciding. Client,
 * servers and Redis share the machine, so the ratio, not the absolute figure, is the result. A response other
 * than {@code 200} counts as a failed call and is reported as an anomaly.
 */
public final class WebBenchmark implements Benchmark {

	/** Permits per second of the limiter: far above what one machine can ask. */
	static final long LIMIT = 1_000_000_000_000L;

	private static final int SAMPLE_CAPACITY = 200_000;

	/** The variants, each an application of its own; {@code none} first, as the base of the ratios. */
	static final List<Variant> VARIANTS = List.of(new Variant("none", "/hello", false, List.of()),
			new Variant("limited", "/limited", true, List.of()),
			new Variant("rules", "/hello", true, List.of("redis-kit.rate-limit.web.rules[0].path=/hello",
					"redis-kit.rate-limit.web.rules[0].limiter=" + WebApplications.LIMITER,
					"redis-kit.rate-limit.web.rules[0].key=ip", "redis-kit.rate-limit.web.rules[0].permits=1")));

	@Override
	public String name() {
		return "web";
	}

	@Override
	public void run(BenchmarkContext context) throws Exception {
		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(10))
			.build();
		List<Map<String, Object>> results = new ArrayList<>();
		for (Stack stack : Stack.values()) {
			results.addAll(runStack(context, http, stack));
		}
		Files.createDirectories(context.options().outputDirectory());
		Map<String, Object> document = new LinkedHashMap<>(context.environment());
		document.put("limit", LIMIT);
		document.put("results", results);
		JsonWriter.write(context.options().outputDirectory().resolve("web.json"), document);
	}

	private List<Map<String, Object>> runStack(BenchmarkContext context, HttpClient http, Stack stack)
			throws Exception {
		Map<Variant, ConfigurableApplicationContext> applications = new LinkedHashMap<>();
		try {
			for (Variant variant : VARIANTS) {
				context.progress("web." + stack.label + "." + variant.name() + ": starting the application");
				applications.put(variant, start(context, stack, variant));
			}
			Map<Variant, List<Double>> rates = new LinkedHashMap<>();
			Map<Variant, LatencySample> latencies = new LinkedHashMap<>();
			for (Variant variant : VARIANTS) {
				rates.put(variant, new ArrayList<>());
				latencies.put(variant, new LatencySample(SAMPLE_CAPACITY));
			}
			int rounds = context.options().rounds();
			for (int round = 0; round < rounds; round++) {
				List<Variant> order = new ArrayList<>(VARIANTS);
				// Alternate the order, so that neither variant always runs on a machine the other just warmed.
				if (round % 2 == 1) {
					Collections.reverse(order);
				}
				for (Variant variant : order) {
					String label = "web." + stack.label + "." + variant.name();
					HttpRequest request = HttpRequest.newBuilder(URI.create(baseUri(applications.get(variant))
							+ variant.path()))
						.timeout(Duration.ofSeconds(30))
						.GET()
						.build();
					LatencySample sample = latencies.get(variant);
					ConcurrentLoad load = context.load("web." + stack.label + " " + variant.name());
					ConcurrentLoad.Outcome outcome = load.run((thread) -> {
						long start = System.nanoTime();
						HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
						if (response.statusCode() != 200) {
							throw new IllegalStateException(label + " answered " + response.statusCode());
						}
						if (load.isMeasuring()) {
							sample.record(System.nanoTime() - start);
						}
					});
					rates.get(variant).add(outcome.opsPerSecond());
				}
			}
			checkLimiterUse(context, stack, applications);
			return report(context, stack, rates, latencies);
		}
		finally {
			applications.values().forEach(ConfigurableApplicationContext::close);
		}
	}

	// A variant that never reached the limiter, or one that did without being meant to, measures nothing.
	private static void checkLimiterUse(BenchmarkContext context, Stack stack,
			Map<Variant, ConfigurableApplicationContext> applications) {
		applications.forEach((variant, application) -> {
			boolean used = application.getBean(WebApplications.DecisionCounter.class).decisions() > 0;
			if (used != variant.limited()) {
				context.reportAnomaly("web." + stack.label + "." + variant.name() + ": limiter "
						+ WebApplications.LIMITER + (used ? " was used" : " was never used"), null);
			}
		});
	}

	private List<Map<String, Object>> report(BenchmarkContext context, Stack stack, Map<Variant, List<Double>> rates,
			Map<Variant, LatencySample> latencies) {
		List<Map<String, Object>> results = new ArrayList<>();
		Map<Variant, Spread> spreads = new LinkedHashMap<>();
		for (Variant variant : VARIANTS) {
			spreads.put(variant, context.spread("web." + stack.label + "." + variant.name(), rates.get(variant)));
		}
		double base = spreads.get(VARIANTS.get(0)).median();
		for (Variant variant : VARIANTS) {
			Spread spread = spreads.get(variant);
			double rate = spread.median();
			double[] percentiles = latencies.get(variant).percentilesMicros(50, 99);
			double ratio = rate / base;
			String label = "web." + stack.label + "." + variant.name();
			CpuMeter.Cost cpu = context.cpu("web." + stack.label).median(variant.name());
			System.out.printf("%-22s %,10.0f req/s  p50 %,8.0f us  p99 %,8.0f us  of-none %.2fx  %s  "
					+ "cpu-us/req=%.1f+%.1f%n", label, rate, percentiles[0], percentiles[1], ratio, spread.token(),
					cpu.clientMicros(), cpu.serverMicros());
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", label);
			result.put("stack", stack.label);
			result.put("variant", variant.name());
			result.put("path", variant.path());
			result.put("requestsPerSecond", rate);
			result.put("roundsRequestsPerSecond", rates.get(variant));
			spread.addTo(result);
			result.put("p50Micros", percentiles[0]);
			result.put("p99Micros", percentiles[1]);
			result.put("ofNone", ratio);
			results.add(result);
		}
		return results;
	}

	private static ConfigurableApplicationContext start(BenchmarkContext context, Stack stack, Variant variant) {
		LettuceConnectionFactory redis = (LettuceConnectionFactory) context.connectionFactory();
		List<String> properties = new ArrayList<>(List.of("server.address=127.0.0.1", "server.port=0",
				"spring.main.banner-mode=off", "spring.main.log-startup-info=false", "logging.level.root=warn",
				"spring.data.redis.host=" + redis.getHostName(), "spring.data.redis.port=" + redis.getPort(),
				"redis-kit.rate-limit.limiters." + WebApplications.LIMITER + ".algorithm=sliding-window",
				"redis-kit.rate-limit.limiters." + WebApplications.LIMITER + ".limit=" + LIMIT,
				"redis-kit.rate-limit.limiters." + WebApplications.LIMITER + ".period=1s",
				// A decision Redis could not make shows as a 429, hence as a failed call: never as a free pass.
				"redis-kit.rate-limit.limiters." + WebApplications.LIMITER + ".failure-policy=fail-closed"));
		properties.addAll(variant.properties());
		return new SpringApplicationBuilder(stack.application).web(stack.type)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static String baseUri(ConfigurableApplicationContext application) {
		return "http://127.0.0.1:" + application.getEnvironment().getProperty("local.server.port");
	}

	/** The web stacks, each with its application. */
	enum Stack {

		WEBFLUX("webflux", WebApplicationType.REACTIVE, WebApplications.WebFlux.class),

		MVC("mvc", WebApplicationType.SERVLET, WebApplications.Mvc.class);

		private final String label;

		private final WebApplicationType type;

		private final Class<?> application;

		Stack(String label, WebApplicationType type, Class<?> application) {
			this.label = label;
			this.type = type;
			this.application = application;
		}

	}

	/**
	 * One way of serving the route: an application of its own, started with these properties.
	 *
	 * @param name the scenario's last part, such as {@code limited}
	 * @param path what the clients ask for
	 * @param limited whether the route is behind limiter {@value WebApplications#LIMITER}, checked after the run
	 * @param properties added to the common ones (Redis, the limiter, the port)
	 */
	record Variant(String name, String path, boolean limited, List<String> properties) {

	}

}

package io.rediskit.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import io.rediskit.benchmarks.CpuMeter.Cost;
import org.jspecify.annotations.Nullable;

/**
 * The processor time per operation of each library of a scenario over its rounds ({@link CpuMeter}, measured by
 * {@link ConcurrentLoad} over every window): the median round of each, their ratio and their spread. Calls per
 * second fall as soon as the hypervisor or another process takes a core; processor time per call hardly moves, so
 * a ratio of these survives a noisy machine that a throughput ratio does not.
 */
public final class CpuFigures {

	private final Map<String, List<Cost>> rounds = new LinkedHashMap<>();

	/**
	 * Records one round.
	 * @param library the library, such as {@code redis-kit}
	 * @param cost its round's processor time per operation
	 */
	public void add(String library, Cost cost) {
		this.rounds.computeIfAbsent(library, (name) -> new ArrayList<>()).add(cost);
	}

	/** @return whether no round was recorded */
	public boolean isEmpty() {
		return this.rounds.isEmpty();
	}

	/**
	 * @param library a library that has rounds
	 * @return its median round by total processor time (client and server) per operation
	 */
	public Cost median(String library) {
		List<Cost> sorted = new ArrayList<>(rounds(library));
		sorted.sort(Comparator.comparingDouble(Cost::totalMicros));
		return sorted.get(sorted.size() / 2);
	}

	/**
	 * @param library a library that has rounds
	 * @return how far its rounds' client processor time per operation disagree
	 */
	public Spread clientSpread(String library) {
		return Spread.of(rounds(library).stream().map(Cost::clientMicros).toList());
	}

	/**
	 * The CPU part of a scenario's line: each library's median client and server microseconds per operation, the
	 * client ratio and the total ratio of redis-kit to the peer (lower is cheaper; 0.50 is half the CPU), and the
	 * spread of each library's client figure.
	 * @param peer the library redis-kit is compared with, such as {@code redisson}
	 * @return such as {@code cpu-us/op=redis-kit:21.4+9.8,redisson:48.0+10.2 client-cpu-ratio=0.45
	 * cpu-ratio=0.54 cpu-spread=redis-kit:3%,redisson:5%}
	 */
	public String token(String peer) {
		StringJoiner perOp = new StringJoiner(",", "cpu-us/op=", "");
		Map<String, Spread> spreads = new LinkedHashMap<>();
		this.rounds.keySet().forEach((library) -> {
			Cost median = median(library);
			perOp.add(String.format(Locale.ROOT, "%s:%.1f+%.1f", library, median.clientMicros(),
					median.serverMicros()));
			spreads.put(library, clientSpread(library));
		});
		String line = perOp.toString();
		if (this.rounds.containsKey("redis-kit") && this.rounds.containsKey(peer)) {
			line += String.format(Locale.ROOT, " client-cpu-ratio=%.2f cpu-ratio=%.2f", clientRatio(peer),
					totalRatio(peer));
		}
		String floor = floor();
		// Only rounds run in pairs (as many of each) pair up; a scenario that measured the floor otherwise has none.
		if (floor != null && rounds(floor).size() == rounds("redis-kit").size()) {
			line += String.format(Locale.ROOT, " client-of-floor=%.2f", clientOfFloor(floor).median());
		}
		return line + " cpu-" + Spread.token(spreads);
	}

	/**
	 * redis-kit's client processor time per operation over its floor's, {@link Spread#paired paired} round by round
	 * (the floor runs next to redis-kit in each round: {@link BenchmarkContext#roundOrder}).
	 * @param floor the floor's name, one of {@link BenchmarkContext#FLOOR_NAMES}
	 * @return the rounds' ratios, whose median is the figure to quote (above 1 is more than the floor's)
	 */
	public Spread clientOfFloor(String floor) {
		return Spread.paired(clientSpread("redis-kit"), clientSpread(floor));
	}

	private @Nullable String floor() {
		if (!this.rounds.containsKey("redis-kit")) {
			return null;
		}
		return BenchmarkContext.FLOOR_NAMES.stream().filter(this.rounds::containsKey).findFirst().orElse(null);
	}

	/**
	 * The CPU part of a line whose libraries ran against servers other than the benchmark's own (Redlock's nodes, a
	 * Cluster): each library's median client microseconds per operation, the client ratio and the spreads; the
	 * benchmark's server did none of that work, so its time is left out.
	 * @param peer the library redis-kit is compared with
	 * @return such as {@code client-cpu-us/op=redis-kit:41.0,redisson-redlock:90.2 client-cpu-ratio=0.45
	 * cpu-spread=redis-kit:3%,redisson-redlock:5%}
	 */
	public String clientToken(String peer) {
		StringJoiner perOp = new StringJoiner(",", "client-cpu-us/op=", "");
		Map<String, Spread> spreads = new LinkedHashMap<>();
		this.rounds.keySet().forEach((library) -> {
			perOp.add(String.format(Locale.ROOT, "%s:%.1f", library, median(library).clientMicros()));
			spreads.put(library, clientSpread(library));
		});
		String line = perOp.toString();
		if (this.rounds.containsKey("redis-kit") && this.rounds.containsKey(peer)) {
			line += String.format(Locale.ROOT, " client-cpu-ratio=%.2f", clientRatio(peer));
		}
		return line + " cpu-" + Spread.token(spreads);
	}

	/**
	 * @param peer the library redis-kit is compared with
	 * @return redis-kit's median client processor time per operation over the peer's
	 */
	public double clientRatio(String peer) {
		return median("redis-kit").clientMicros() / median(peer).clientMicros();
	}

	/**
	 * @param peer the library redis-kit is compared with
	 * @return redis-kit's median total (client and server) processor time per operation over the peer's
	 */
	public double totalRatio(String peer) {
		return median("redis-kit").totalMicros() / median(peer).totalMicros();
	}

	/**
	 * @param library a library that has rounds
	 * @return its figures for a result file: the median's client and server microseconds per operation and every
	 * round's, with the client figure's spread
	 */
	public Map<String, Object> toJson(String library) {
		Cost median = median(library);
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("clientCpuMicrosPerOp", oneDecimal(median.clientMicros()));
		json.put("serverCpuMicrosPerOp", oneDecimal(median.serverMicros()));
		json.put("clientCpuMicrosPerOpByRound", rounds(library).stream().map((cost) -> oneDecimal(cost.clientMicros()))
			.toList());
		json.put("serverCpuMicrosPerOpByRound", rounds(library).stream().map((cost) -> oneDecimal(cost.serverMicros()))
			.toList());
		Map<String, Object> spread = new LinkedHashMap<>();
		clientSpread(library).addTo(spread);
		json.put("clientCpuSpread", spread.get("spread"));
		return json;
	}

	private List<Cost> rounds(String library) {
		List<Cost> costs = this.rounds.get(library);
		if (costs == null || costs.isEmpty()) {
			throw new IllegalArgumentException("No rounds of " + library);
		}
		return costs;
	}

	private static double oneDecimal(double value) {
		return Math.round(value * 10) / 10.0;
	}

}

package io.rediskit.support;

import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

/**
 * Records which redis-kit observations are open and which ended, for tests that assert none is left open (a
 * cancelled wait) or how one ended.
 */
public final class ObservationRecorder implements ObservationHandler<Observation.Context> {

	private final Set<Observation.Context> open = ConcurrentHashMap.newKeySet();

	private final Queue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

	@Override
	public void onStart(Observation.Context context) {
		this.open.add(context);
	}

	@Override
	public void onStop(Observation.Context context) {
		this.open.remove(context);
		this.stopped.add(context);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof RedisKitContext;
	}

	/** @return the open observations of one kind */
	public List<Observation.Context> open(RedisKitObservation observation) {
		return this.open.stream().filter((context) -> ((RedisKitContext) context).observation() == observation).toList();
	}

	/** @return the ended observations of one kind, in the order they ended */
	public List<Observation.Context> stopped(RedisKitObservation observation) {
		return this.stopped.stream()
			.filter((context) -> ((RedisKitContext) context).observation() == observation)
			.toList();
	}

	/**
	 * @return observations made in a registry of their own that only this recorder handles, for tests that ask
	 * how calls ended
	 */
	public Observations observations() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(this);
		return Observations.of(registry, null);
	}

	/**
	 * @param observation which kind
	 * @param outcome how they ended
	 * @return {@code "<configured name> <detail>"} of each ended observation of the kind with the outcome, in the
	 * order they ended ({@code "visitors add"} for an operation)
	 */
	public List<String> calls(RedisKitObservation observation, String outcome) {
		return stopped(observation).stream()
			.map(RedisKitContext.class::cast)
			.filter((context) -> context.outcome().equals(outcome))
			.map((context) -> context.configuredName() + " " + context.detail())
			.toList();
	}

	/** @return the outcome an ended observation was tagged with */
	public static String outcome(Observation.Context context) {
		return ((RedisKitContext) context).outcome();
	}

}

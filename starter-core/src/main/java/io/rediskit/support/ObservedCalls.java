package io.rediskit.support;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;

/**
 * What every call of one named structure does around its command: observe it as its area's
 * {@link RedisKitObservation} (tagged with the configured name, the operation and the outcome, {@value #SUCCESS},
 * {@value #REFUSED} or {@value #ERROR}), and log an outage once per interval. The returned stage fails with the
 * cause itself (in a {@link CompletionException}), so sync methods that join it throw what the call failed with.
 * <p>
 * The calls of one structure share one instance. With {@link Observations#NOOP} a call allocates nothing more
 * than the stage it returns: no context, no scope.
 */
public final class ObservedCalls {

	/** The outcome of a call Redis answered. */
	public static final String SUCCESS = "success";

	/** The outcome of a write Redis refused: its month or bucket is past the retention, and nothing was written. */
	public static final String REFUSED = "refused";

	/** The outcome of a call that failed: Redis could not answer, or answered with an error. */
	public static final String ERROR = "error";

	private final RedisKitObservation observation;

	private final String name;

	private final Supplier<Observations> observations;

	private final ThrottledLog outages;

	/**
	 * @param kind what the structure is, for the outage log ({@code "Unique counter"})
	 * @param observation its area's observation, one of the {@code *_OPERATION} constants
	 * @param name its configured name
	 * @param observations the observations of its registry, read on each call (so that a registry given its
	 * observations after it made the structure still reports)
	 * @param logger where the outage warning goes, the structure's own category
	 */
	public ObservedCalls(String kind, RedisKitObservation observation, String name,
			Supplier<Observations> observations, Log logger) {
		this.observation = observation;
		this.name = name;
		this.observations = observations;
		this.outages = new ThrottledLog(logger, Duration.ofSeconds(10), kind + " '" + name + "' cannot reach Redis");
	}

	/** @return the configured name of the structure */
	public String name() {
		return this.name;
	}

	/**
	 * Makes the call and observes its outcome. The observation is in scope while the call is made, so that the
	 * driver's own command spans are its children.
	 * @param operation the operation's name, a low-cardinality tag ({@code add}, {@code check-in})
	 * @param call makes the call
	 * @param <T> the call's result
	 * @return the call's stage, observed
	 */
	public <T> CompletionStage<T> observed(String operation, Supplier<? extends CompletionStage<T>> call) {
		Observation observation = this.observations.get().start(this.observation, this.name, operation);
		CompletionStage<T> stage;
		try (Observation.Scope scope = observation.openScope()) {
			stage = call.get();
		}
		catch (RuntimeException | Error ex) {
			failed(observation, operation, ex);
			throw ex;
		}
		return stage.handle((result, failure) -> {
			if (failure == null) {
				Observations.stop(observation, SUCCESS);
				return result;
			}
			Throwable cause = Stages.unwrap(failure);
			failed(observation, operation, cause);
			throw (cause instanceof CompletionException completion) ? completion : new CompletionException(cause);
		});
	}

	private void failed(Observation observation, String operation, Throwable cause) {
		if (cause instanceof RetentionPassedException) {
			Observations.stop(observation, REFUSED, cause);
			return;
		}
		Observations.stop(observation, ERROR, cause);
		if (RedisFailures.isUnavailable(cause)) {
			this.outages.warn(cause, "the " + operation + " call fails");
		}
	}

}

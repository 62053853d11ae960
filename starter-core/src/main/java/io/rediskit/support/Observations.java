package io.rediskit.support;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionException;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * How a primitive makes its {@link RedisKitObservation}s: the application's {@link ObservationRegistry} and the
 * convention of its choice, one instance per registry of primitives.
 * <p>
 * <b>No cost when nothing observes.</b> With {@link ObservationRegistry#NOOP} (the default when the application
 * has no registry) or a registry that is switched off, every method returns {@link Observation#NOOP} or its input
 * before it makes a context or a lambda, so that an instrumented hot path allocates nothing it did not before;
 * callers test {@link #isNoop()} before they build anything only an observation needs.
 */
public final class Observations {

	/** Observes nothing. */
	public static final Observations NOOP = new Observations(ObservationRegistry.NOOP, null);

	private final ObservationRegistry registry;

	/** Per observation, by ordinal: its name, and the tags of the application's convention or the default. */
	private final Named[] conventions;

	private Observations(ObservationRegistry registry, @Nullable RedisKitObservationConvention convention) {
		this.registry = registry;
		RedisKitObservationConvention tags = (convention != null) ? convention
				: DefaultRedisKitObservationConvention.INSTANCE;
		RedisKitObservation[] observations = RedisKitObservation.values();
		this.conventions = new Named[observations.length];
		for (RedisKitObservation observation : observations) {
			this.conventions[observation.ordinal()] = new Named(observation, tags);
		}
	}

	/**
	 * @param registry the application's registry
	 * @param convention the application's convention, or {@code null} for {@link DefaultRedisKitObservationConvention}
	 * @return observations made in the registry
	 */
	public static Observations of(ObservationRegistry registry, @Nullable RedisKitObservationConvention convention) {
		Objects.requireNonNull(registry, "registry must not be null");
		return (registry == ObservationRegistry.NOOP && convention == null) ? NOOP
				: new Observations(registry, convention);
	}

	/** @return whether nothing observes: every observation made is {@link Observation#NOOP} */
	public boolean isNoop() {
		return this.registry.isNoop();
	}

	/** @return the registry observations are made in */
	public ObservationRegistry registry() {
		return this.registry;
	}

	/**
	 * Starts an observation, a child of the current one if any. It is not put in scope: a caller whose work runs
	 * inside it opens the scope itself.
	 * @param observation which
	 * @param configuredName the configured name
	 * @param detail the value of the observation's detail tag, or {@code null}
	 * @return the started observation, {@link Observation#NOOP} when nothing observes
	 */
	public Observation start(RedisKitObservation observation, String configuredName, @Nullable String detail) {
		if (isNoop()) {
			return Observation.NOOP;
		}
		RedisKitObservationContext context = new RedisKitObservationContext(observation, configuredName, detail);
		return create(observation, context).start();
	}

	/**
	 * Starts the observation of a message sent, which writes the trace context into a copy of its headers.
	 * @param observation which
	 * @param configuredName the queue's name
	 * @param detail the value of the observation's detail tag (an enqueue's source), or {@code null}
	 * @param headers the message's headers
	 * @return the started observation; its context's carrier holds the headers to send
	 */
	public Observation startSend(RedisKitObservation observation, String configuredName, @Nullable String detail,
			Map<String, String> headers) {
		if (isNoop()) {
			return Observation.NOOP;
		}
		RedisKitSenderContext context = new RedisKitSenderContext(observation, configuredName, detail,
				new LinkedHashMap<>(headers));
		return create(observation, context).start();
	}

	/**
	 * Starts the observation of a message received, continuing the trace its headers carry.
	 * @param observation which
	 * @param configuredName the queue's name
	 * @param headers the message's headers
	 * @return the started observation
	 */
	public Observation startReceive(RedisKitObservation observation, String configuredName,
			Map<String, String> headers) {
		if (isNoop()) {
			return Observation.NOOP;
		}
		return create(observation, new RedisKitReceiverContext(observation, configuredName, headers)).start();
	}

	/**
	 * Makes the observation with its own named convention as the default, so that the registry's predicates see
	 * its name and a {@code GlobalObservationConvention} of the application may still replace it.
	 */
	private Observation create(RedisKitObservation observation, Observation.Context context) {
		return Observation.createNotStarted(null, this.conventions[observation.ordinal()], () -> context,
				this.registry);
	}

	/**
	 * Ends an observation with an outcome.
	 * @param observation the observation, possibly {@link Observation#NOOP}
	 * @param outcome how it ended
	 */
	public static void stop(Observation observation, String outcome) {
		stop(observation, outcome, (Throwable) null);
	}

	/**
	 * Ends an observation whose detail tag is known only now (a cache lookup's tier).
	 * @param observation the observation, possibly {@link Observation#NOOP}
	 * @param outcome how it ended
	 * @param detail the value of its detail tag
	 */
	public static void stopWithDetail(Observation observation, String outcome, String detail) {
		if (observation.isNoop()) {
			return;
		}
		if (observation.getContext() instanceof RedisKitObservationContext context) {
			context.detail(detail);
		}
		stop(observation, outcome, (Throwable) null);
	}

	/**
	 * Ends an observation with an outcome and, if given, the error it ended with.
	 * @param observation the observation, possibly {@link Observation#NOOP}
	 * @param outcome how it ended
	 * @param error what it failed with (a {@link CompletionException} is unwrapped), or {@code null}
	 */
	public static void stop(Observation observation, String outcome, @Nullable Throwable error) {
		if (observation.isNoop()) {
			return;
		}
		if (observation.getContext() instanceof RedisKitContext context) {
			context.outcome(outcome);
		}
		if (error != null) {
			observation.error((error instanceof CompletionException && error.getCause() != null) ? error.getCause()
					: error);
		}
		observation.stop();
	}

	/**
	 * One observation's convention: the name of the application's convention if it gives one, else the
	 * observation's own (never {@code null}: predicates and meter handlers need it), and its tags and span name.
	 */
	private static final class Named implements RedisKitObservationConvention {

		private final String name;

		private final RedisKitObservationConvention tags;

		Named(RedisKitObservation observation, RedisKitObservationConvention tags) {
			String named = tags.getName();
			this.name = (named != null && !named.isBlank()) ? named : observation.getName();
			this.tags = tags;
		}

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public @Nullable String getContextualName(Observation.Context context) {
			return this.tags.getContextualName(context);
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
			return this.tags.getLowCardinalityKeyValues(context);
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(Observation.Context context) {
			return this.tags.getHighCardinalityKeyValues(context);
		}

	}

}

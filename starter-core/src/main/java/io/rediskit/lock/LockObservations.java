package io.rediskit.lock;

import io.micrometer.observation.Observation;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;

/**
 * The observations of one registry's locks: their waits ({@link RedisKitObservation#LOCK_WAIT}) and holds
 * ({@link RedisKitObservation#LOCK_HOLD}), tagged with the lock group's name and the member of the family. With
 * {@link Observations#NOOP} (the default) each start is {@link Observation#NOOP} and allocates nothing.
 */
final class LockObservations {

	/** The member of the family, as the naming scheme spells it: {@code lock}, {@code fair}, {@code readwrite}... */
	private final String kind;

	private volatile Observations observations = Observations.NOOP;

	LockObservations(String kind) {
		this.kind = kind;
	}

	void set(Observations observations) {
		this.observations = observations;
	}

	/** @return whether nothing observes: every wait and hold started is {@link Observation#NOOP} */
	boolean isNoop() {
		return this.observations.isNoop();
	}

	Observation startWait(String group) {
		return this.observations.start(RedisKitObservation.LOCK_WAIT, group, this.kind);
	}

	Observation startHold(String group) {
		return this.observations.start(RedisKitObservation.LOCK_HOLD, group, this.kind);
	}

	/** @return the member of the family a registry's kind is, as in the names of its properties and meters */
	static String member(String registryKind) {
		return switch (registryKind) {
			case "fairlock" -> "fair";
			case "rwlock" -> "readwrite";
			case "Redlock" -> "redlock";
			default -> registryKind;
		};
	}

}

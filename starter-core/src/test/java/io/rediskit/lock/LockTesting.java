package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.rediskit.support.LuaScript;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitContext;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * Shared pieces of the lock tests: a fenced resource, a recording listener, waiting on conditions. Public for the
 * tests of the members built on the lock's public API in packages of their own (leader election), which also stall a
 * hold's renewals through it.
 */
public final class LockTesting {

	static final LuaScript FENCED_WRITE = LuaScript.fromClasspath("io/rediskit/lock/fenced-write.lua");

	private LockTesting() {
	}

	/** Writes to the fenced test resource; true when the resource accepted the token. */
	static boolean fencedWrite(RedisConnectionFactory connections, String resource, long token, String value) {
		return fencedWriteInOrder(connections, resource, token, value).accepted();
	}

	/**
	 * Writes to the fenced test resource.
	 * @return whether the resource accepted the token, and the write's place in the resource's history
	 */
	public static FencedWrite fencedWriteInOrder(RedisConnectionFactory connections, String resource, long token,
			String value) {
		List<?> reply = ScriptExecutor.of(connections).execute(FENCED_WRITE, ReturnType.MULTI, 1, bytes(resource),
				bytes(Long.toString(token)), bytes(value));
		if (reply == null || reply.size() != 2) {
			throw new IllegalStateException("fenced-write.lua answered " + reply);
		}
		return new FencedWrite(((Number) reply.get(0)).longValue() == 1L, ((Number) reply.get(1)).longValue());
	}

	/** Non-atomic read-modify-write: only mutual exclusion keeps the count exact. */
	static void unsafeIncrement(RedisConnection connection, String counter) {
		byte[] key = bytes(counter);
		byte[] current = connection.stringCommands().get(key);
		long value = (current == null) ? 0 : Long.parseLong(new String(current, StandardCharsets.US_ASCII));
		connection.stringCommands().set(key, bytes(Long.toString(value + 1)));
	}

	/** Polls a condition that a later event makes true; fails after the timeout. */
	public static void awaitCondition(String what, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
			}
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted waiting for " + what, ex);
			}
		}
	}

	/**
	 * Stops the watchdog renewing the holds of a lock, as if Redis no longer answered this instance: the watchdog
	 * skips a hold with a renewal in flight.
	 * @return how many holds were stalled
	 */
	public static int stallRenewals(LockFamilyRegistry registry, String lockName) {
		int stalled = 0;
		for (LockHold hold : registry.shell().parts().holds().all()) {
			if (hold.lock.name().equals(lockName)) {
				hold.stallRenewals();
				stalled++;
			}
		}
		return stalled;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * One write to the fenced test resource, as the server saw it.
	 * @param accepted whether the resource took the token
	 * @param sequence the write's place among every write to the resource, accepted or not, in the server's order
	 */
	public record FencedWrite(boolean accepted, long sequence) {
	}

	/**
	 * Gives a registry the observations of a recording listener, if one is among its listeners, so that its waits
	 * and holds are recorded beside its events.
	 * @return the registry
	 */
	static <R extends LockFamilyRegistry> R observed(R registry, Object... listeners) {
		for (Object listener : listeners) {
			if (listener instanceof RecordingListener recording) {
				registry.setObservations(recording.observations());
			}
			else if (listener instanceof SemaphoreTesting.RecordingListener recording) {
				registry.setObservations(recording.observations());
			}
		}
		return registry;
	}

	/**
	 * Records the waits ({@code acquire <group> <OUTCOME>}) and released holds ({@code release <group>}) of the
	 * lock family's observations, in the order they end, into {@code events}, and the groups of abandoned holds into
	 * {@link #abandoned}.
	 */
	static final class RecordedObservations implements ObservationHandler<Observation.Context> {

		private final List<String> events;

		private final Observations observations;

		/** The groups of the holds that ended abandoned (never the caller's), in the order they ended. */
		final List<String> abandoned = new CopyOnWriteArrayList<>();

		private final AtomicReference<Runnable> onHoldStart = new AtomicReference<>();

		private final AtomicReference<Runnable> onEnd = new AtomicReference<>();

		RecordedObservations(List<String> events) {
			this.events = events;
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(this);
			this.observations = Observations.of(registry, null);
		}

		Observations observations() {
			return this.observations;
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof RedisKitContext;
		}

		/**
		 * Runs a hook once, as the next hold starts: on the thread that applies a grant, after the wait checked
		 * for a cancel and before the caller's stage takes the lease, the window a caller's cancel can fall into.
		 */
		void onNextHoldStart(Runnable hook) {
			this.onHoldStart.set(hook);
		}

		/**
		 * Runs a hook once, as the next wait or hold ends, before it is recorded: on the thread that ends it, as a
		 * wait's outcome is reported or a hold is released, lost or abandoned, the moments a caller's cancel can race
		 * a wait's end.
		 */
		void onNextEnd(Runnable hook) {
			this.onEnd.set(hook);
		}

		@Override
		public void onStart(Observation.Context context) {
			if (((RedisKitContext) context).observation() == RedisKitObservation.LOCK_HOLD) {
				Runnable hook = this.onHoldStart.getAndSet(null);
				if (hook != null) {
					hook.run();
				}
			}
		}

		@Override
		public void onStop(Observation.Context context) {
			RedisKitContext observed = (RedisKitContext) context;
			if (observed.observation() == RedisKitObservation.LOCK_WAIT
					|| observed.observation() == RedisKitObservation.LOCK_HOLD) {
				Runnable hook = this.onEnd.getAndSet(null);
				if (hook != null) {
					hook.run();
				}
			}
			if (observed.observation() == RedisKitObservation.LOCK_WAIT) {
				this.events.add("acquire " + observed.configuredName() + " " + observed.outcome().toUpperCase(Locale.ROOT));
			}
			else if (observed.observation() == RedisKitObservation.LOCK_HOLD && observed.outcome().equals("released")) {
				this.events.add("release " + observed.configuredName());
			}
			else if (observed.observation() == RedisKitObservation.LOCK_HOLD && observed.outcome().equals("abandoned")) {
				this.abandoned.add(observed.configuredName());
			}
		}

	}

	/**
	 * Records every event as text, for assertions, and the waits and holds of a registry given its
	 * {@link #observations()} ({@link #observed}).
	 */
	static final class RecordingListener implements LockListener {

		final List<String> events = new CopyOnWriteArrayList<>();

		private final RecordedObservations observed = new RecordedObservations(this.events);

		Observations observations() {
			return this.observed.observations();
		}

		/** See {@link RecordedObservations#onNextHoldStart}. */
		void onNextHoldStart(Runnable hook) {
			this.observed.onNextHoldStart(hook);
		}

		/** See {@link RecordedObservations#onNextEnd}. */
		void onNextEnd(Runnable hook) {
			this.observed.onNextEnd(hook);
		}

		/** @return the groups of the holds that ended abandoned */
		List<String> abandoned() {
			return this.observed.abandoned;
		}

		@Override
		public void onRenewal(String lockName, RenewalResult result) {
			this.events.add("renewal " + lockName + " " + result);
		}

		@Override
		public void onLeaseLost(String lockName, long fencingToken) {
			this.events.add("lost " + lockName + " " + fencingToken);
		}

		@Override
		public void onReplicaShortfall(String lockName, long acknowledged, int required) {
			this.events.add("shortfall " + lockName + " " + acknowledged + "/" + required);
		}

		long count(String prefix) {
			return this.events.stream().filter((event) -> event.startsWith(prefix)).count();
		}

	}

}

package io.rediskit.queue;

import java.time.Duration;
import java.util.Objects;

import io.rediskit.support.Expiry;
import io.rediskit.support.InvalidSpecException;

/**
 * What a second enqueue of a message id does while an earlier message of that id is (or was recently) in the
 * queue: the queue's unique jobs. Chosen per queue ({@link QueueSpec#withDeduplication}) or per message
 * ({@link QueueEntry#withDeduplication}); it applies to messages enqueued with an id of the caller's
 * ({@link QueueEntry#withId}), since a generated id is never a duplicate. The outcome of each enqueue is told to the
 * caller ({@link EnqueueResult}) and to the metrics.
 * <ul>
 * <li>{@link Mode#UNTIL_FINISHED} (the default): dropped while a message of the id is in the queue in any state,
 * waiting, in flight or dead;</li>
 * <li>{@link Mode#UNTIL_STARTED}: dropped while a message of the id waits for its first delivery; once it has
 * been claimed, a new one is enqueued;</li>
 * <li>{@link Mode#THROTTLE}: dropped within {@code window} of the last enqueue of the id that was not dropped,
 * whatever became of that message (even acknowledged); after the window, a new one is enqueued;</li>
 * <li>{@link Mode#DEBOUNCE}: within {@code window} of the last enqueue of the id, while that message still waits
 * for its first delivery, a new enqueue replaces its payload, headers, time to live, priority and due time (so
 * only the last runs) and opens the window again; otherwise a new one is enqueued.</li>
 * </ul>
 * <b>Ids.</b> A message enqueued while an earlier message of the same id is still in the queue (running, dead,
 * or, after a throttle window, waiting) is stored under a fresh id, {@code <id>~<generated>}, which
 * {@link EnqueueResult#id()} returns and its consumer sees; the id it was enqueued with stays the key that
 * later enqueues are compared with. Windows are on the server's clock, and the state is kept in Redis in the
 * queue's hash slot, checked and changed in the enqueue script itself: atomic across instances, one round trip.
 *
 * @param mode the mode
 * @param window for {@link Mode#THROTTLE} and {@link Mode#DEBOUNCE}, the window, from 1 ms to {@link Expiry#MAX};
 * {@link Duration#ZERO} for the other modes
 */
public record Deduplication(Mode mode, Duration window) {

	/** Today's behaviour and the default: unique while a message of the id is in the queue. */
	public static final Deduplication UNTIL_FINISHED = new Deduplication(Mode.UNTIL_FINISHED, Duration.ZERO);

	/** Unique while a message of the id waits for its first delivery. */
	public static final Deduplication UNTIL_STARTED = new Deduplication(Mode.UNTIL_STARTED, Duration.ZERO);

	/**
	 * Validates the deduplication.
	 * @throws InvalidSpecException naming {@code window} if it is out of range for the mode
	 */
	public Deduplication {
		Objects.requireNonNull(mode, "mode must not be null");
		Objects.requireNonNull(window, "window must not be null");
		if (mode.windowed()) {
			if (window.toMillis() < 1 || window.compareTo(Expiry.MAX) > 0) {
				throw new InvalidSpecException("window",
						"must be between 1ms and " + Expiry.MAX + " for " + mode + ", was " + window);
			}
		}
		else if (!window.isZero()) {
			throw new InvalidSpecException("window", "is only for THROTTLE and DEBOUNCE, was " + window + " for " + mode);
		}
	}

	/**
	 * @param window how long after an enqueue of an id further enqueues of it are dropped
	 * @return throttle deduplication
	 */
	public static Deduplication throttle(Duration window) {
		return new Deduplication(Mode.THROTTLE, window);
	}

	/**
	 * @param window how long after an enqueue of an id a further enqueue replaces the waiting message
	 * @return debounce deduplication
	 */
	public static Deduplication debounce(Duration window) {
		return new Deduplication(Mode.DEBOUNCE, window);
	}

	/** @return the letter the enqueue script knows the mode by */
	String code() {
		return this.mode.code;
	}

	/** The deduplication modes; see {@link Deduplication}. */
	public enum Mode {

		/** Unique while a message of the id is in the queue, in any state. */
		UNTIL_FINISHED("f", false),

		/** Unique while a message of the id waits for its first delivery. */
		UNTIL_STARTED("s", false),

		/** At most one enqueue of an id per window. */
		THROTTLE("t", true),

		/** Within the window, the last enqueue of an id replaces the waiting message. */
		DEBOUNCE("d", true);

		private final String code;

		private final boolean windowed;

		Mode(String code, boolean windowed) {
			this.code = code;
			this.windowed = windowed;
		}

		/** @return whether the mode takes a window */
		public boolean windowed() {
			return this.windowed;
		}

	}

}

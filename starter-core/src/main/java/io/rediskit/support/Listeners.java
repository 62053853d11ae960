package io.rediskit.support;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The listeners of one primitive, composed and guarded in one place: each event goes to every listener in
 * order, and a listener that throws is logged (once per interval, not per event) and never breaks the
 * operation, the other listeners or a background loop such as the lock watchdog.
 * <pre>{@code
 * this.listeners.notify((listener) -> listener.onDecision(name, decision, latency));
 * }</pre>
 *
 * @param <L> the listener interface
 */
public final class Listeners<L> {

	private static final Log logger = LogFactory.getLog(Listeners.class);

	private final List<L> listeners;

	private final ThrottledLog failures;

	private Listeners(String area, List<L> listeners) {
		this.listeners = listeners;
		this.failures = new ThrottledLog(logger, Duration.ofSeconds(10), "A " + area + " listener failed; the "
				+ area + " carries on");
	}

	/**
	 * Composes listeners.
	 * @param <L> the listener interface
	 * @param area the feature, for the log, such as {@code lock}
	 * @param listeners the listeners, in the order they hear events; may be empty
	 * @return the composed, guarded listeners
	 */
	public static <L> Listeners<L> of(String area, List<? extends L> listeners) {
		Objects.requireNonNull(area, "area");
		return new Listeners<>(area, List.copyOf(listeners));
	}

	/**
	 * Tells every listener of an event.
	 * @param event calls one listener method
	 */
	public void notify(Consumer<? super L> event) {
		for (L listener : this.listeners) {
			try {
				event.accept(listener);
			}
			catch (RuntimeException ex) {
				this.failures.warn(ex);
			}
		}
	}

	/** @return whether there are no listeners, so work done only for them can be skipped */
	public boolean isEmpty() {
		return this.listeners.isEmpty();
	}

}

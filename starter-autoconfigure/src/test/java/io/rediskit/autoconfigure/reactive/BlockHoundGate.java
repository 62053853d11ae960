package io.rediskit.autoconfigure.reactive;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.BlockingOperationError;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound for the tests that must not block a non-blocking thread (the reactive annotations, the WebFlux rate
 * limits for routes), on only while a test holds it open; one gate for the whole test JVM, since BlockHound
 * installs once. It is installed once per
 * test JVM with the integrations on the class path (Reactor's, Netty's), and it also counts Reactor Netty's
 * and Lettuce's event loops as non-blocking threads. A blocking call on one of those threads while the gate is
 * open throws {@link BlockingOperationError} and is recorded, so a block that a driver's callback swallows
 * still fails the test; while it is closed (the other tests of this module, some of which call blocking
 * annotated methods on Netty's threads on purpose) nothing is checked.
 */
public final class BlockHoundGate implements AutoCloseable {

	private static final List<String> violations = new CopyOnWriteArrayList<>();

	private static volatile boolean open;

	static {
		BlockHound.install(new Integration());
	}

	private BlockHoundGate() {
	}

	/** @return the open gate; close it when the test ends */
	public static BlockHoundGate open() {
		violations.clear();
		open = true;
		return new BlockHoundGate();
	}

	/** @return the blocking calls seen on non-blocking threads since the gate opened */
	public static List<String> violations() {
		return List.copyOf(violations);
	}

	/** @return the blocking calls seen since the gate opened or this was last called, which are then forgotten */
	public static List<String> takeViolations() {
		List<String> seen = List.copyOf(violations);
		violations.removeAll(seen);
		return seen;
	}

	@Override
	public void close() {
		open = false;
	}

	private static void blocked(BlockingMethod method) {
		if (!open) {
			return;
		}
		violations.add(method + " on " + Thread.currentThread().getName());
		throw new BlockingOperationError(method);
	}

	private static final class Integration implements BlockHoundIntegration {

		@Override
		public void applyTo(BlockHound.Builder builder) {
			builder.nonBlockingThreadPredicate((current) -> current.or((thread) -> {
				String name = thread.getName();
				return name.startsWith("reactor-http-") || name.startsWith("lettuce-");
			})).blockingMethodCallback(BlockHoundGate::blocked);
			// Lettuce guards each write with a lock held for a counter update: under contention it parks for
			// microseconds, which is no blocking I/O. An error thrown inside it would also leave the lock's state
			// corrupt, and every later write on that connection would spin for ever (seen: a test JVM hung).
			builder.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters");
			builder.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "decrementWriters");
			builder.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "doExclusive");
			// The same for the locks a reactive lock wait takes on the driver's thread, each held for a few updates:
			// cancelling its sleep (a scheduler that removes cancelled tasks locks its queue; Reactor's integration
			// allows only offer and take), joining or leaving its release channel and the subscription that asks
			// for. Contended, they park for microseconds. An error thrown there once left a wait whose sleep was
			// cancelled and whose next attempt never ran: an HTTP request without an answer (a CI run).
			builder.allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor", "remove");
			builder.allowBlockingCallsInside("io.rediskit.support.ReleaseSignals", "join");
			builder.allowBlockingCallsInside("io.rediskit.support.ReleaseSignals", "leave");
			builder.allowBlockingCallsInside("io.rediskit.support.Subscriptions", "subscribe");
			builder.allowBlockingCallsInside("io.rediskit.support.Subscriptions", "unsubscribe");
		}

		// Applied after the integrations found on the class path, so that its callback is the one in force.
		@Override
		public int getPriority() {
			return Integer.MAX_VALUE;
		}

	}

}

package io.rediskit.autoconfigure.ratelimit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * BlockHound for the tests that must not block a non-blocking thread (Reactor's schedulers, Netty's event loops:
 * Reactor Netty's server threads and Lettuce's), installed once per test JVM with the integrations on the class
 * path, and in force only while a test class has {@link #open() opened} it: the other tests of this JVM (such as the
 * blocking {@code @RateLimited} annotation on WebFlux) run unchecked. Each blocking call it sees fails where it is
 * made, with {@link BlockingOperationError}, and is recorded, so a test can assert there were none even where the
 * error became a 500.
 */
final class BlockHoundGate {

	private static volatile boolean checking;

	private static final List<String> caught = new CopyOnWriteArrayList<>();

	static {
		BlockHound.builder()
			.loadIntegrations()
			.nonBlockingThreadPredicate((nonBlocking) -> nonBlocking.and((thread) -> checking))
			.blockingMethodCallback((method) -> {
				caught.add(method + " on " + Thread.currentThread().getName());
				throw new BlockingOperationError(method);
			})
			.install();
	}

	private BlockHoundGate() {
	}

	static void open() {
		checking = true;
	}

	static void close() {
		checking = false;
	}

	/** @return the blocking calls seen since the last call, which are then forgotten */
	static List<String> takeCaught() {
		List<String> seen = List.copyOf(caught);
		caught.clear();
		return seen;
	}

}

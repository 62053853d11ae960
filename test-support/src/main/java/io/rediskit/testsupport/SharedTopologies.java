package io.rediskit.testsupport;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts each deployment once per test JVM, on first use, and hands it to the tests that ask: the deployments
 * live in JUnit's root store and are closed when the run ends ({@link RedisServerProcess}'s shutdown hook covers
 * an aborted run). Registered on a test class, it connects every test instance that is an {@link OnTopology}
 * before each test, after JUnit injected the class's parameters (which is why it is a before-each callback and
 * not an instance post-processor).
 * <p>
 * Suites parameterized by something other than a {@link Topology} (an engine on a deployment) start what they
 * need through {@link #get(ExtensionContext, Topology)} and {@link #get(ExtensionContext, String, Class, Supplier)}.
 */
public final class SharedTopologies implements BeforeEachCallback {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(SharedTopologies.class);

	@Override
	public void beforeEach(ExtensionContext context) {
		if (context.getRequiredTestInstance() instanceof OnTopology test) {
			test.connect(get(context, test.topology()));
		}
	}

	/**
	 * @param context any context of the run
	 * @param topology which deployment
	 * @return the run's shared deployment of that topology, started now if no test asked for it before
	 */
	public static RedisTopology get(ExtensionContext context, Topology topology) {
		return get(context, topology.name(), RedisTopology.class, () -> RedisTopology.start(topology));
	}

	/**
	 * Anything else a run shares, such as several independent servers: started once per run and closed at its
	 * end.
	 * @param context any context of the run
	 * @param key what it is, unique within the run (a topology's name is taken)
	 * @param type its type
	 * @param start how to start it the first time
	 * @param <T> its type
	 * @return the shared instance
	 */
	public static <T extends AutoCloseable> T get(ExtensionContext context, String key, Class<T> type,
			Supplier<T> start) {
		return context.getRoot().getStore(NAMESPACE).computeIfAbsent(key, (ignored) -> start.get(), type);
	}

	/** A test instance that runs on one topology and is handed its shared deployment before each test. */
	public interface OnTopology {

		/** @return the topology this instance runs on */
		Topology topology();

		/**
		 * Called before each test.
		 * @param redis the shared running deployment of {@link #topology()}
		 */
		void connect(RedisTopology redis);

	}

}

package io.rediskit.lock;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Five independent servers for the Redlock tests: fresh connection factories per test (so that a node a test
 * killed costs the next test no reconnect back-off), registries over them, and what each node stores.
 */
final class RedlockTesting implements AutoCloseable {

	static final int NODES = 5;

	/** Generous on a loaded machine (two JVMs, six servers, two cores), still far below the command timeout. */
	static final Duration NODE_TIMEOUT = Duration.ofSeconds(1);

	private final RedisServerExtension servers;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RedlockRegistry> registries = new ArrayList<>();

	RedlockTesting(RedisServerExtension servers) {
		this.servers = servers;
		for (RedisServerProcess server : servers.all()) {
			if (server.isAlive()) {
				server.resume();
			}
		}
		servers.flushAll();
	}

	static RedlockSpec spec() {
		return RedlockSpec.defaults().withNodeTimeout(NODE_TIMEOUT).withRetry(Duration.ofMillis(5), Duration.ofMillis(20));
	}

	/** @return new connection factories to the first {@link #NODES} servers */
	List<LettuceConnectionFactory> connections() {
		List<LettuceConnectionFactory> created = new ArrayList<>();
		for (int i = 0; i < NODES; i++) {
			created.add(TestConnections.lettuce(this.servers.server(i)));
		}
		this.factories.addAll(created);
		return created;
	}

	/** @return a registry on new connections, closed with this fixture */
	RedlockRegistry registry(RedlockSpec spec, LockListener... listeners) {
		RedlockRegistry registry = LockTesting.observed(new RedlockRegistry(connections(), KeyNaming.defaults(), spec,
				List.of(listeners), Clock.systemUTC()), (Object[]) listeners);
		this.registries.add(registry);
		return registry;
	}

	RedisServerProcess node(int index) {
		return this.servers.server(index);
	}

	/** @return the owner stored for the lock on one node, {@code null} when it has no key */
	Object owner(int index, String lock) {
		return node(index).command("HGET", KeyNaming.defaults().key("lock", lock), "o");
	}

	/** @return on how many nodes the lock's key exists */
	long nodesHolding(String lock) {
		long holding = 0;
		for (int i = 0; i < NODES; i++) {
			if (owner(i, lock) != null) {
				holding++;
			}
		}
		return holding;
	}

	/** @return on how many of the given nodes the lock's key exists */
	long nodesHolding(String lock, int... indexes) {
		long holding = 0;
		for (int index : indexes) {
			if (owner(index, lock) != null) {
				holding++;
			}
		}
		return holding;
	}

	@Override
	public void close() {
		this.registries.forEach(RedlockRegistry::close);
		for (RedisServerProcess server : this.servers.all()) {
			if (server.isAlive()) {
				server.resume();
			}
		}
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

}

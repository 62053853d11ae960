package io.rediskit.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts real {@code redis-server} processes before the tests of a class and stops them
 * afterwards. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = RedisServerExtension.servers(3);
 *
 * @Test
 * void survivesAPause() {
 *     redis.server(0).pause();
 *     ...
 * }
 * }</pre>
 *
 * Servers stay up across the tests of the class; tests that need a clean slate call {@link #flushAll()}, which
 * only ever touches servers this extension started.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

	private final int count;

	private final String[] arguments;

	private final List<RedisServerProcess> servers = new ArrayList<>();

	private RedisServerExtension(int count, String... arguments) {
		if (count < 1) {
			throw new IllegalArgumentException("count must be at least 1, was " + count);
		}
		this.count = count;
		this.arguments = arguments.clone();
	}

	/**
	 * One server.
	 * @param arguments further {@code redis-server} arguments
	 * @return the extension
	 */
	public static RedisServerExtension standalone(String... arguments) {
		return new RedisServerExtension(1, arguments);
	}

	/**
	 * Several independent servers (independent masters, as for Redlock).
	 * @param count how many
	 * @param arguments further {@code redis-server} arguments for each
	 * @return the extension
	 */
	public static RedisServerExtension servers(int count, String... arguments) {
		return new RedisServerExtension(count, arguments);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		for (int i = 0; i < this.count; i++) {
			this.servers.add(RedisServerProcess.start(this.arguments));
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		for (RedisServerProcess server : this.servers) {
			server.close();
		}
		this.servers.clear();
	}

	/** @return the first server */
	public RedisServerProcess server() {
		return server(0);
	}

	/**
	 * @param index which server, from 0
	 * @return that server
	 */
	public RedisServerProcess server(int index) {
		if (this.servers.isEmpty()) {
			throw new IllegalStateException("Servers are started before all tests: register the extension on a static field");
		}
		return this.servers.get(index);
	}

	/** @return all servers, in start order */
	public List<RedisServerProcess> all() {
		return List.copyOf(this.servers);
	}

	/** Deletes every key on every server this extension started, restarting any that were killed or paused. */
	public void flushAll() {
		for (RedisServerProcess server : this.servers) {
			if (!server.isAlive()) {
				server.restart();
			}
			server.flushAll();
		}
	}

}

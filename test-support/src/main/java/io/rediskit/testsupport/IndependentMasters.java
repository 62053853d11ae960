package io.rediskit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Several standalone servers that do not replicate each other, each with the connection factory an application
 * would configure for it: what a quorum algorithm such as Redlock runs on. Shared like a {@link RedisTopology}
 * ({@link SharedTopologies#get(org.junit.jupiter.api.extension.ExtensionContext, String, Class,
 * java.util.function.Supplier)}): users name keys with {@link #unique(String)} and never flush.
 */
public final class IndependentMasters implements AutoCloseable {

	private final List<RedisServerProcess> servers;

	private final List<LettuceConnectionFactory> connections;

	private IndependentMasters(List<RedisServerProcess> servers, Duration commandTimeout) {
		this.servers = List.copyOf(servers);
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		for (RedisServerProcess server : servers) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()),
					LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
			factory.afterPropertiesSet();
			factory.start();
			factories.add(factory);
		}
		this.connections = List.copyOf(factories);
	}

	/**
	 * Starts the servers and connects to each, with a 5 s command timeout.
	 * @param count how many servers, at least one
	 * @return the running servers; close them when done
	 */
	public static IndependentMasters start(int count) {
		if (count < 1) {
			throw new IllegalArgumentException("count must be at least 1, was " + count);
		}
		List<RedisServerProcess> servers = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				servers.add(RedisServerProcess.start());
			}
		}
		catch (RuntimeException ex) {
			servers.forEach(RedisServerProcess::close);
			throw ex;
		}
		return new IndependentMasters(servers, Duration.ofSeconds(5));
	}

	/** @return the servers, in order */
	public List<RedisServerProcess> servers() {
		return this.servers;
	}

	/** @return one started connection factory per server, in the same order */
	public List<LettuceConnectionFactory> connections() {
		return this.connections;
	}

	/**
	 * A name no other test in this or an earlier run uses, as {@link RedisTopology#unique(String)} gives.
	 * @param base what the name is for
	 * @return {@code base} followed by a run id and a sequence number
	 */
	public String unique(String base) {
		return RedisTopology.uniqueName(base);
	}

	/**
	 * @param key a key
	 * @return on how many servers it exists
	 */
	public long holding(String key) {
		return this.servers.stream().filter((server) -> Long.valueOf(1).equals(server.command("EXISTS", key))).count();
	}

	/** Closes the connection factories and stops every server. */
	@Override
	public void close() {
		this.connections.forEach(LettuceConnectionFactory::destroy);
		this.servers.forEach(RedisServerProcess::close);
	}

	@Override
	public String toString() {
		return this.servers.size() + " independent masters";
	}

}

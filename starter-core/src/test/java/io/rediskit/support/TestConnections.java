package io.rediskit.support;

import java.time.Duration;

import io.rediskit.testsupport.RedisServerProcess;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Lettuce connection factories for tests, pointed at a server the test started. */
public final class TestConnections {

	private TestConnections() {
	}

	/**
	 * @param server the server
	 * @param commandTimeout how long a command may take before it fails
	 * @return a started factory; destroy it when done
	 */
	public static LettuceConnectionFactory lettuce(RedisServerProcess server, Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * @param server the server
	 * @return a started factory with a 5 s command timeout
	 */
	public static LettuceConnectionFactory lettuce(RedisServerProcess server) {
		return lettuce(server, Duration.ofSeconds(5));
	}

}

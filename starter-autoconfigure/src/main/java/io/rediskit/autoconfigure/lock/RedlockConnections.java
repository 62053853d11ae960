package io.rediskit.autoconfigure.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.rediskit.lock.LockRegistry;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One Lettuce connection factory per configured Redlock node, owned by the context: created in the constructor
 * without starting anything, started when the bean is initialised (as Spring Boot starts its own connection
 * factory; no connection is opened before the first call), stopped after the
 * {@link io.rediskit.lock.RedlockRegistry} and destroyed with the context.
 * They are not {@code RedisConnectionFactory} beans, so the application's own Redis connection stays the only
 * one Spring Boot and redis-kit's other primitives see.
 */
public final class RedlockConnections implements SmartLifecycle, InitializingBean, DisposableBean {

	private final List<LettuceConnectionFactory> factories;

	private volatile boolean running;

	/**
	 * @param nodes the node URLs
	 * @param connectTimeout longest wait for a connection
	 * @param commandTimeout how long the driver keeps an unanswered request
	 */
	RedlockConnections(List<RedlockNodeUrl> nodes, Duration connectTimeout, Duration commandTimeout) {
		List<LettuceConnectionFactory> created = new ArrayList<>();
		for (RedlockNodeUrl node : nodes) {
			RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(node.host(), node.port());
			server.setDatabase(node.database());
			if (node.username() != null) {
				server.setUsername(node.username());
			}
			if (node.password() != null) {
				server.setPassword(RedisPassword.of(node.password()));
			}
			LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
				.commandTimeout(commandTimeout)
				.clientOptions(ClientOptions.builder()
					.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
					.build());
			if (node.ssl()) {
				client.useSsl();
			}
			created.add(new LettuceConnectionFactory(server, client.build()));
		}
		this.factories = List.copyOf(created);
	}

	/** @return the factories, in the configured order */
	public List<LettuceConnectionFactory> factories() {
		return this.factories;
	}

	/** Starts the factories when the bean is initialised, as Spring Boot does with its own connection factory. */
	@Override
	public void afterPropertiesSet() {
		for (LettuceConnectionFactory factory : this.factories) {
			factory.afterPropertiesSet();
		}
		start();
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		for (LettuceConnectionFactory factory : this.factories) {
			factory.start();
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		for (LettuceConnectionFactory factory : this.factories) {
			factory.stop();
		}
	}

	@Override
	public void destroy() {
		stop();
		for (LettuceConnectionFactory factory : this.factories) {
			factory.destroy();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Starts before the Redlock registry ({@link LockRegistry#PHASE}) and stops after it. */
	@Override
	public int getPhase() {
		return LockRegistry.PHASE - 1;
	}

}

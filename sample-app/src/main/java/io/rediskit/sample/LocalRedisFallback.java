package io.rediskit.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;

import io.rediskit.testsupport.RedisServerProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample start on a machine with only a JDK: when no Redis is configured
 * ({@code spring.data.redis.host}, {@code .port}, {@code .url}, {@code .cluster.nodes} and
 * {@code .sentinel.nodes} all unset) and nothing answers on localhost:6379, it starts a local
 * {@code redis-server} (a Redis 7 or newer from the {@code PATH}, else the Redis 7.0.15 binary bundled through
 * Maven) on a free port,
 * points the application at it and stops it when the JVM exits. Applications of your own configure Redis
 * with {@code spring.data.redis.*} instead. With the {@code redlock} profile it also starts five servers for
 * Redlock, unless {@code redis-kit.lock.redlock.nodes} lists some.
 */
class LocalRedisFallback implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

	private static final Log logger = LogFactory.getLog(LocalRedisFallback.class);

	private static final String[] CONNECTION_PROPERTIES = { "spring.data.redis.host", "spring.data.redis.port",
			"spring.data.redis.url", "spring.data.redis.cluster.nodes", "spring.data.redis.sentinel.nodes" };

	private @Nullable RedisServerProcess server;

	@Override
	public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
		ConfigurableEnvironment environment = event.getEnvironment();
		startRedlockNodes(environment);
		for (String property : CONNECTION_PROPERTIES) {
			if (environment.containsProperty(property)) {
				return;
			}
		}
		if (answers("localhost", 6379)) {
			logger.info("Using the Redis server on localhost:6379");
			return;
		}
		RedisServerProcess started = RedisServerProcess.start();
		this.server = started;
		Runtime.getRuntime().addShutdownHook(new Thread(started::close, "redis-kit-sample-redis-stop"));
		environment.getPropertySources()
			.addFirst(new MapPropertySource("localRedisFallback",
					Map.of("spring.data.redis.host", started.host(), "spring.data.redis.port", started.port())));
		logger.info("No Redis configured and none on localhost:6379: started " + started + " from "
				+ started.binary().path() + " (" + started.binary().source() + "); it stops with this application");
	}

	/**
	 * With {@code sample.redlock.local-nodes} set (the {@code redlock} profile sets 5) and no
	 * {@code redis-kit.lock.redlock.nodes}, starts that many local servers for Redlock and lists them there. The
	 * default profile starts none, so the sample stays quick to start.
	 */
	private void startRedlockNodes(ConfigurableEnvironment environment) {
		int count = environment.getProperty("sample.redlock.local-nodes", Integer.class, 0);
		if (count <= 0 || environment.containsProperty("redis-kit.lock.redlock.nodes")
				|| environment.containsProperty("redis-kit.lock.redlock.nodes[0]")) {
			return;
		}
		Map<String, Object> nodes = new java.util.LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			RedisServerProcess node = RedisServerProcess.start();
			Runtime.getRuntime().addShutdownHook(new Thread(node::close, "redis-kit-sample-redlock-stop"));
			nodes.put("redis-kit.lock.redlock.nodes[" + i + "]", "redis://" + node.host() + ":" + node.port());
		}
		environment.getPropertySources().addFirst(new MapPropertySource("localRedlockNodes", nodes));
		logger.info("Started " + count + " local redis-servers for Redlock: " + nodes.values()
				+ "; they stop with this application");
	}

	private static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 300);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}

package io.rediskit.support;

import java.time.Duration;

import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real redis-server for the tests of a class, and a Lettuce connection factory pointed at it. Register it
 * on a static field: {@code @RegisterExtension static final RedisTestServer redis = RedisTestServer.start();}.
 */
public final class RedisTestServer implements BeforeAllCallback, AfterAllCallback {

	private final RedisServerExtension servers = RedisServerExtension.standalone();

	private final Duration commandTimeout;

	private LettuceConnectionFactory connections;

	private ScriptExecutor scripts;

	private RedisTestServer(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	/** @return a server with a client whose commands time out after 5 s */
	public static RedisTestServer start() {
		return new RedisTestServer(Duration.ofSeconds(5));
	}

	/**
	 * @param commandTimeout how long a command may take before it fails
	 * @return a server with such a client
	 */
	public static RedisTestServer withCommandTimeout(Duration commandTimeout) {
		return new RedisTestServer(commandTimeout);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.servers.beforeAll(context);
		this.connections = TestConnections.lettuce(this.servers.server(), this.commandTimeout);
		this.scripts = ScriptExecutor.of(this.connections);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.connections.destroy();
		this.servers.afterAll(context);
	}

	/** @return the server process, for inspection and fault injection */
	public RedisServerProcess server() {
		return this.servers.server();
	}

	/** @return the connection factory the code under test uses */
	public LettuceConnectionFactory connections() {
		return this.connections;
	}

	/** @return the script executor the code under test uses */
	public ScriptExecutor scripts() {
		return this.scripts;
	}

	/**
	 * @param command a command's name in lower case, as {@code INFO commandstats} names it ({@code evalsha})
	 * @return how many times the server has run it
	 */
	public long commandCalls(String command) {
		String stats = (String) server().command("INFO", "commandstats");
		String prefix = "cmdstat_" + command + ":";
		return stats.lines()
			.filter((line) -> line.startsWith(prefix))
			.mapToLong((line) -> Long.parseLong(line.replaceAll("^" + prefix + "calls=(\\d+),.*", "$1")))
			.findFirst()
			.orElse(0);
	}

	/** Deletes every key on the server, restarting it first if a test killed it. */
	public void flushAll() {
		this.servers.flushAll();
	}

}

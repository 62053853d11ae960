package io.rediskit.cache;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The caches' subscription closed while its connection is being made to a server that does not answer
 * ({@code SIGSTOP}): connecting waits up to the driver's command timeout, here longer than the hang detector, and
 * the close must not wait for it. The connection, once made, closes itself.
 */
class CacheSignalsShutdownTests {

	/** A hang detector only: far beyond the documented bound of a stop, far below the command timeout. */
	static final Duration HANG = Duration.ofSeconds(60);

	static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);

	static final Duration BOUND = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@Test
	void closeReturnsWhileTheSubscriptionConnectionWaitsForRedisAndThatConnectionEndsOnceMade() throws Exception {
		RedisServerProcess server = redis.server();
		LettuceConnectionFactory connections = TestConnections.lettuce(server, COMMAND_TIMEOUT);
		CacheSignals signals = new CacheSignals(connections, CommandExecutor.of(connections), "rk:cache:probe:",
				Duration.ofSeconds(1), null);
		CompletableFuture<Object> watched = new CompletableFuture<>();
		Thread watching = new Thread(() -> {
			try {
				signals.watch("rk:cache:{closing}", (message) -> {
				});
				watched.complete("subscribed");
			}
			catch (RuntimeException ex) {
				watched.complete(ex);
			}
		}, "watching-cache");
		watching.setDaemon(true);
		try {
			try (RedisConnection connection = connections.getConnection()) {
				connection.ping();
			}
			server.pause();
			watching.start();
			long deadline = System.nanoTime() + BOUND.toNanos();
			while (!in(watching, "connectPubSub")) {
				assertThat(System.nanoTime()).as("the subscription to connect").isLessThan(deadline);
				Thread.sleep(5);
			}
			assertTimeoutPreemptively(HANG, signals::close);
		}
		finally {
			server.resume();
		}
		// Made once Redis answers again, the connection sees the close and ends: the watch fails, no subscriber is left.
		assertThat(watched.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
		assertThat(signals.watching("rk:cache:{closing}")).isFalse();
		assertThat(clientsSubscribed(server)).isZero();
		connections.destroy();
	}

	/** @return how many pub/sub connections the server has, once none is left or after the bound */
	private static long clientsSubscribed(RedisServerProcess server) throws InterruptedException {
		long deadline = System.nanoTime() + BOUND.toNanos();
		while (true) {
			Object reply = server.command("CLIENT", "LIST", "TYPE", "pubsub");
			long count = String.valueOf(reply).lines().filter((line) -> !line.isBlank()).count();
			if (count == 0 || System.nanoTime() > deadline) {
				return count;
			}
			Thread.sleep(5);
		}
	}

	private static boolean in(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().equals(method));
	}

}

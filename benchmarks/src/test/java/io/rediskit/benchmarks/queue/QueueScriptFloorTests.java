package io.rediskit.benchmarks.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.rediskit.queue.QueueEntry;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.queue.RedisQueue;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue's same-script floor calls the scripts redis-kit ships with the keys and arguments they take today: what
 * it enqueues redis-kit delivers, and what redis-kit enqueued it claims and acknowledges, on a real server. Its
 * figures mean nothing once the scripts' contract moves on without it (the claim then fails in Lua).
 */
class QueueScriptFloorTests {

	private static RedisServerProcess server;

	private static LettuceConnectionFactory connectionFactory;

	private static QueueRegistry registry;

	private final KeyNaming naming = new KeyNaming("floor-test:");

	@BeforeAll
	static void start() {
		server = RedisServerProcess.start();
		connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		registry = new QueueRegistry(ScriptExecutor.of(connectionFactory), connectionFactory,
				new KeyNaming("floor-test:"), JsonMapper.builder().build(), List.of(), (name) -> null);
	}

	@AfterAll
	static void stop() {
		registry.close();
		connectionFactory.destroy();
		server.close();
	}

	@Test
	void claimsAndAcknowledgesWhatRedisKitEnqueued() {
		RedisQueue<String> queue = registry.create("claimed", QueueSpec.defaults(), String.class);
		List<QueueEntry<String>> entries = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			entries.add(QueueEntry.of("message-" + i));
		}
		queue.enqueueAll(entries);
		try (StatefulRedisConnection<byte[], byte[]> connection = connect()) {
			QueueScriptFloor floor = new QueueScriptFloor(connection, this.naming, "claimed");
			assertThat(floor.claimAndAck(40, 30_000)).isEqualTo(40);
			assertThat(floor.claimAndAck(40, 30_000)).isEqualTo(10);
			assertThat(floor.claimAndAck(40, 30_000)).isZero();
		}
		assertThat(queue.stats().total()).isZero();
	}

	@Test
	void enqueuesWhatRedisKitDelivers() throws Exception {
		RedisQueue<String> queue = registry.create("enqueued", QueueSpec.defaults(), String.class);
		try (StatefulRedisConnection<byte[], byte[]> connection = connect()) {
			QueueScriptFloor floor = new QueueScriptFloor(connection, this.naming, "enqueued");
			floor.enqueue("\"from the floor\"", 0);
		}
		List<QueueMessage<String>> polled = queue.poll(10, Duration.ofSeconds(5));
		assertThat(polled).extracting(QueueMessage::payload).containsExactly("from the floor");
	}

	@Test
	void sendsTheVeryScriptsRedisKitSends() throws Exception {
		RedisQueue<String> queue = registry.create("same-scripts", QueueSpec.defaults(), String.class);
		queue.enqueue("one");
		try (StatefulRedisConnection<byte[], byte[]> connection = connect()) {
			// Only what redis-kit itself sends from here on is in the server's script cache.
			connection.sync().scriptFlush();
			List<QueueMessage<String>> polled = queue.poll(1, Duration.ofSeconds(5));
			assertThat(polled).hasSize(1);
			polled.get(0).ack();
			assertThat(connection.sync().scriptExists(QueueScriptFloor.PROMOTE.sha1(), QueueScriptFloor.CLAIM.sha1(),
					QueueScriptFloor.ACK_MANY.sha1()))
				.as("promote, claim and ack_many as redis-kit sends them")
				.containsExactly(true, true, true);
		}
	}

	private static StatefulRedisConnection<byte[], byte[]> connect() {
		return ((RedisClient) connectionFactory.getRequiredNativeClient()).connect(ByteArrayCodec.INSTANCE);
	}

}

package io.rediskit.benchmarks.queue;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floor of {@code enqueue(payload, delay)}: the queue's own {@code enqueue.lua}, read from the
 * class path where the starter keeps it, run by bare Lettuce {@code EVALSHA} with the keys and arguments
 * redis-kit sends for one message, on one connection all threads share. What redis-kit adds on top (JSON
 * serialization of the payload, the id, its executor, listeners and metrics) is what its figure loses against
 * this one.
 * <p>
 * <b>Written against {@code QueueScripts.enqueue}</b> (package-private in the starter): change this class with it.
 * Keys: the queue's eight keys {@code <prefix>queue:{<name>}:delayed|ready|in-flight|dead|meta|payloads|reasons|settled};
 * arguments: an empty time (the server's {@code TIME}), the wake-up channel {@code <prefix>queue:{<name>}:wake},
 * then per message its id (here a counter after a per-floor id, as long as redis-kit's), the payload as JSON, the
 * delay in ms and {@code 0} (no due time).
 */
final class QueueScriptFloor {

	private static final LuaScript ENQUEUE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/enqueue.lua");

	private static final String[] SUFFIXES = { "delayed", "ready", "in-flight", "dead", "meta", "payloads", "reasons",
			"settled" };

	private final RedisCommands<byte[], byte[]> commands;

	private final byte[][] keys;

	private final byte[] channel;

	private final String instance = UUID.randomUUID().toString().substring(0, 10);

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * Loads the script, so that no call pays for a {@code NOSCRIPT}.
	 * @param connection the connection every call goes through; the caller closes it
	 * @param naming the key naming of the run
	 * @param queue the floor's queue name, not one redis-kit's queues of the run use
	 */
	QueueScriptFloor(StatefulRedisConnection<byte[], byte[]> connection, KeyNaming naming, String queue) {
		this.commands = connection.sync();
		this.keys = new byte[SUFFIXES.length][];
		for (int i = 0; i < SUFFIXES.length; i++) {
			this.keys[i] = utf8(naming.key("queue", queue, SUFFIXES[i]));
		}
		this.channel = utf8(naming.key("queue", queue, "wake"));
		String loaded = this.commands.scriptLoad(ENQUEUE.source().getBytes(StandardCharsets.UTF_8));
		if (!ENQUEUE.sha1().equals(loaded)) {
			throw new IllegalStateException("SCRIPT LOAD of " + ENQUEUE + " returned SHA-1 " + loaded);
		}
	}

	/**
	 * Enqueues one message, as {@code enqueue(payload, delay)} does.
	 * @param json the payload, already JSON
	 * @param delayMillis the delay
	 */
	void enqueue(String json, long delayMillis) {
		String id = String.format("%020x", this.sequence.incrementAndGet()) + this.instance;
		this.commands.evalsha(ENQUEUE.sha1(), ScriptOutputType.MULTI, this.keys, new byte[0], this.channel, utf8(id),
				utf8(json), utf8(Long.toString(delayMillis)), utf8("0"));
	}

	/** Deletes the floor's keys. */
	void purge() {
		this.commands.del(this.keys);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

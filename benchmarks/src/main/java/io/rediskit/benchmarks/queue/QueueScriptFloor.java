package io.rediskit.benchmarks.queue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;

/**
 * The same-script floors of the queue: {@link #enqueue} for {@code enqueue(payload, delay)}, and
 * {@link #claimAndAck} for a consumer's claim and acks at a batch size. The first is {@code enqueue(payload, delay)}: the queue's own {@code enqueue.lua}, read from the
 * class path where the starter keeps it, run by bare Lettuce {@code EVALSHA} with the keys and arguments
 * redis-kit sends for one message, on one connection all threads share. What redis-kit adds on top (JSON
 * serialization of the payload, the id, its executor, listeners and metrics) is what its figure loses against
 * this one.
 * <p>
 * <b>Written against {@code QueueScripts.enqueue}, {@code promote}, {@code claim} and {@code ackAll}</b>
 * (package-private in the starter): change this class with them.
 * Keys: the queue's eight keys {@code <prefix>queue:{<name>}:delayed|ready|in-flight|dead|meta|payloads|reasons|settled},
 * then for the scripts that place or take messages by priority the four of the other priorities
 * ({@code delayed:high|ready:high|delayed:low|ready:low}), for the enqueue then the deduplication's
 * {@code unique} and {@code windows}, and for the claim its request record
 * ({@code claim:<request>}), the high and low ready lists, the pause hash, the rate log and the weighted turn, the
 * four group keys after {@code group-of} and the groups' rate keys ({@code group-rate}, {@code group-rate-counts}),
 * none of them read for a queue without groups, and
 * for the acks the workflow keys ({@code workflow}, {@code batches-finished}, then delayed and ready of the normal,
 * high and low priorities) and the group hash ({@code group-of});
 * enqueue arguments: an empty time (the server's {@code TIME}), the wake-up channel {@code <prefix>queue:{<name>}:wake},
 * then per message its id (here a counter after a per-floor id, as long as redis-kit's), the payload as JSON, the
 * delay in ms, {@code 0} (no due time), {@code n} (normal priority), an empty deduplication (a generated id), {@code 0}
 * (no window) and an empty other id; the claim as a container without admission
 * limits sends it: no listener id, no in-flight or rate limit, the default weighted turn, no groups (and their
 * limits 0, the period 1 ms).
 */
final class QueueScriptFloor {

	/**
	 * {@code QueueScripts.ENQUEUE}: the enqueue with its functions {@code earliest_due} and {@code into_group}, as
	 * redis-kit sends it.
	 */
	static final LuaScript ENQUEUE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/enqueue.lua",
			functions("earliest_due", "into_group"));

	/** {@code QueueScripts.PROMOTE}: the promotion with its function {@code into_group}, as redis-kit sends it. */
	static final LuaScript PROMOTE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/promote.lua",
			functions("into_group"));

	/**
	 * {@code QueueScripts.CLAIM}: the claim with the rate limiter's sliding log before it as a local function, the
	 * script redis-kit sends (claim.lua alone is another script, with another SHA-1, and less to load per call).
	 */
	static final LuaScript CLAIM = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/claim.lua",
			Map.of("sliding_log", "META-INF/redis-kit/scripts/ratelimit/sliding_log.lua"));

	/**
	 * The acks, with the flow and batch bookkeeping as its function {@code workflow} (and {@code earliest_due}
	 * before it, which it calls) and the record of settled tokens as its function {@code remember}, in the order
	 * redis-kit sends them.
	 */
	static final LuaScript ACK_MANY = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/ack_many.lua",
			functions("earliest_due", "workflow", "remember"));

	private static final String[] SUFFIXES = { "delayed", "ready", "in-flight", "dead", "meta", "payloads", "reasons",
			"settled" };

	/** The other priorities' keys, after the eight: what enqueue and promote take as KEYS[9] to KEYS[12]. */
	private static final String[] LEVEL_SUFFIXES = { "delayed:high", "ready:high", "delayed:low", "ready:low" };

	/** {@code QueuePriority.TURN}: the priorities' weighted turn a claim takes its messages in. */
	private static final byte[] TURN = utf8("hnhlhnhnhh");

	/** A generated id's deduplication (none) and its other id (none). */
	private static final byte[] NO_DEDUPLICATION = new byte[0];

	/** A message's group (none). */
	private static final byte[] NO_GROUP = new byte[0];

	/** {@code QueueScripts.MOVE_BATCH}: most messages one promote moves. */
	private static final byte[] MOVE_BATCH = utf8("500");

	private final RedisCommands<byte[], byte[]> commands;

	private final byte[][] keys;

	/** The eight keys and the four of the other priorities. */
	private final byte[][] levelKeys;

	/** The eight keys, the four of the other priorities, the unique hash, the windows and the groups': enqueue's. */
	private final byte[][] enqueueKeys;

	/** The keys of a queue's groups, as {@code QueueScripts.Keys} orders them (this floor's queue has none). */
	private final byte[][] groupKeys;

	/** The keys of the groups' rate limits, as {@code QueueScripts.Keys.groupRate} orders them (the claim's last). */
	private final byte[][] groupRateKeys;

	/** Those of the claim after its request record: high and low ready, pause hash, rate log, turn. */
	private final byte[][] claimKeys;

	private final byte[][] ackKeys;

	private final byte[] cancelChannel;

	private final byte[] channel;

	private final String instance = UUID.randomUUID().toString().substring(0, 10);

	private final AtomicLong sequence = new AtomicLong();

	private final String claimPrefix;

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
		this.levelKeys = Arrays.copyOf(this.keys, SUFFIXES.length + LEVEL_SUFFIXES.length);
		for (int i = 0; i < LEVEL_SUFFIXES.length; i++) {
			this.levelKeys[SUFFIXES.length + i] = utf8(naming.key("queue", queue, LEVEL_SUFFIXES[i]));
		}
		this.groupKeys = new byte[][] { utf8(naming.key("queue", queue, "group-of")),
				utf8(naming.key("queue", queue, "group-ready")), utf8(naming.key("queue", queue, "group-turns")),
				utf8(naming.key("queue", queue, "group-running")), utf8(naming.key("queue", queue, "group-sequence")) };
		this.groupRateKeys = new byte[][] { utf8(naming.key("queue", queue, "group-rate")),
				utf8(naming.key("queue", queue, "group-rate-counts")) };
		this.enqueueKeys = Arrays.copyOf(this.levelKeys, this.levelKeys.length + 2 + this.groupKeys.length);
		this.enqueueKeys[this.levelKeys.length] = utf8(naming.key("queue", queue, "unique"));
		this.enqueueKeys[this.levelKeys.length + 1] = utf8(naming.key("queue", queue, "windows"));
		System.arraycopy(this.groupKeys, 0, this.enqueueKeys, this.levelKeys.length + 2, this.groupKeys.length);
		this.claimKeys = new byte[][] { this.levelKeys[9], this.levelKeys[11], utf8(naming.key("queue", queue, "paused")),
				utf8(naming.key("queue", queue, "rate")), utf8(naming.key("queue", queue, "turn")) };
		this.channel = utf8(naming.key("queue", queue, "wake"));
		this.cancelChannel = utf8(naming.key("queue", queue, "cancel"));
		this.ackKeys = Arrays.copyOf(this.keys, this.keys.length + 9);
		this.ackKeys[8] = utf8(naming.key("queue", queue, "workflow"));
		this.ackKeys[9] = utf8(naming.key("queue", queue, "batches-finished"));
		this.ackKeys[10] = this.levelKeys[0];
		this.ackKeys[11] = this.levelKeys[1];
		System.arraycopy(this.levelKeys, 8, this.ackKeys, 12, 4);
		this.ackKeys[16] = this.groupKeys[0];
		this.claimPrefix = naming.key("queue", queue, "claim:");
		for (LuaScript script : new LuaScript[] { ENQUEUE, PROMOTE, CLAIM, ACK_MANY }) {
			String loaded = this.commands.scriptLoad(script.source().getBytes(StandardCharsets.UTF_8));
			if (!script.sha1().equals(loaded)) {
				throw new IllegalStateException("SCRIPT LOAD of " + script + " returned SHA-1 " + loaded);
			}
		}
	}

	/**
	 * One consumer round trip at a batch size, as a listener container makes it with nothing else: the promote
	 * and claim scripts sent back to back (as {@code claimBatch} sends them), then one {@code ack_many} call for
	 * everything claimed (as the container's acks go when they meet on the wire).
	 * @param max most messages to claim
	 * @param visibilityMillis the visibility timeout
	 * @return how many were claimed and acknowledged
	 */
	int claimAndAck(int max, long visibilityMillis) {
		byte[][] promoteKeys = Arrays.copyOf(this.levelKeys, this.levelKeys.length + 4);
		promoteKeys[this.levelKeys.length] = this.groupKeys[0];
		promoteKeys[this.levelKeys.length + 1] = this.groupKeys[1];
		promoteKeys[this.levelKeys.length + 2] = this.groupKeys[2];
		promoteKeys[this.levelKeys.length + 3] = this.groupKeys[4];
		this.commands.evalsha(PROMOTE.sha1(), ScriptOutputType.MULTI, promoteKeys, new byte[0], MOVE_BATCH,
				new byte[0]);
		String request = this.instance + "-" + this.sequence.incrementAndGet();
		byte[][] claimKeys = Arrays.copyOf(this.keys, this.keys.length + 1 + this.claimKeys.length + 4 + 2);
		claimKeys[this.keys.length] = utf8(this.claimPrefix + request);
		System.arraycopy(this.claimKeys, 0, claimKeys, this.keys.length + 1, this.claimKeys.length);
		System.arraycopy(this.groupKeys, 1, claimKeys, this.keys.length + 1 + this.claimKeys.length, 4);
		System.arraycopy(this.groupRateKeys, 0, claimKeys, this.keys.length + 1 + this.claimKeys.length + 4, 2);
		List<Object> claimed = this.commands.evalsha(CLAIM.sha1(), ScriptOutputType.MULTI, claimKeys, new byte[0],
				utf8(request), utf8(Integer.toString(max)), utf8(Long.toString(visibilityMillis)), new byte[0], utf8("0"),
				utf8("0"), utf8("0"), TURN, new byte[0], utf8("0"), utf8("0"), utf8("1"));
		// {now, held back by, held back count, ms until admitted}, then six values per message, the token fifth.
		int count = (claimed.size() - 4) / 6;
		if (count == 0) {
			return 0;
		}
		byte[][] args = new byte[5 + count * 3][];
		args[0] = new byte[0];
		args[1] = utf8("600000");
		args[2] = this.channel;
		args[3] = this.cancelChannel;
		args[4] = utf8("86400000");
		for (int m = 0; m < count; m++) {
			args[5 + m * 3] = (byte[]) claimed.get(4 + m * 6);
			args[6 + m * 3] = (byte[]) claimed.get(8 + m * 6);
			args[7 + m * 3] = new byte[0];
		}
		this.commands.evalsha(ACK_MANY.sha1(), ScriptOutputType.MULTI, this.ackKeys, args);
		return count;
	}

	/**
	 * Enqueues one message, as {@code enqueue(payload, delay)} does.
	 * @param json the payload, already JSON
	 * @param delayMillis the delay
	 */
	void enqueue(String json, long delayMillis) {
		String id = String.format("%020x", this.sequence.incrementAndGet()) + this.instance;
		this.commands.evalsha(ENQUEUE.sha1(), ScriptOutputType.MULTI, this.enqueueKeys, new byte[0], this.channel,
				utf8(id), utf8(json), utf8(Long.toString(delayMillis)), utf8("0"), utf8("n"), NO_DEDUPLICATION,
				utf8("0"), NO_DEDUPLICATION, NO_GROUP);
	}

	/** Deletes the floor's keys. */
	void purge() {
		this.commands.del(this.enqueueKeys);
		this.commands.del(this.claimKeys);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/** @return the queue scripts of these names as functions, in this order: one calls only those before it */
	private static Map<String, String> functions(String... names) {
		Map<String, String> functions = new LinkedHashMap<>();
		for (String name : names) {
			functions.put(name, "META-INF/redis-kit/scripts/queue/" + name + ".lua");
		}
		return functions;
	}

}

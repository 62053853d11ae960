package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of a queue: one method per operation, each running its own script through the
 * {@link ScriptExecutor} with its arguments in order and its reply read. Every script takes the eight keys of
 * one {@link Keys}, all in the queue name's hash slot, and the time to act at ({@code null}: the server's
 * {@code TIME}; tests pin it).
 * <p>
 * Replays by the driver after a reconnect are harmless: a claim carries a request id whose record returns the
 * same messages, ack, retry, dead-letter and release carry the delivery's token, which the first application
 * records for {@link #SETTLED_RETENTION} (the latest {@value #SETTLED_MOST} at most: {@code remember.lua}), and a
 * cancel carries a request id recorded the same way.
 */
final class QueueScripts {

	/** The enqueue, with {@code earliest_due} and {@code into_group} as its functions. */
	static final LuaScript ENQUEUE = LuaScript.fromClasspath(path("enqueue"), functions("earliest_due", "into_group"));

	/** The promotion, with {@code into_group} as its function. */
	static final LuaScript PROMOTE = LuaScript.fromClasspath(path("promote"), functions("into_group"));

	/** The claim, with the sliding-log rate limiter's script as its function {@code sliding_log}. */
	static final LuaScript CLAIM = LuaScript.fromClasspath(path("claim"),
			Map.of("sliding_log", "META-INF/redis-kit/scripts/ratelimit/sliding_log.lua"));

	static final LuaScript ACK = settling("ack");

	static final LuaScript ACK_MANY = settling("ack_many");

	static final LuaScript RETRY = settling("retry");

	static final LuaScript DEAD_LETTER = settling("dead_letter");

	static final LuaScript EXTEND = script("extend");

	static final LuaScript RELEASE = givingBack("release");

	static final LuaScript REQUEUE = givingBack("requeue");

	static final LuaScript CANCEL = settling("cancel");

	static final LuaScript STATS = script("stats");

	static final LuaScript ENQUEUE_FLOW = withMembers("enqueue_flow");

	static final LuaScript ENQUEUE_BATCH = withMembers("enqueue_batch");

	static final LuaScript FLOW_CHILDREN = script("flow_children");

	static final LuaScript BATCH_PROGRESS = script("batch_progress");

	static final LuaScript BATCHES = script("batches");

	static final LuaScript GROUPS = script("groups");

	static final LuaScript DEAD_LETTERS = script("dead_letters");

	static final LuaScript REDRIVE = LuaScript.fromClasspath(path("redrive"), functions("into_group"));

	static final LuaScript REDRIVE_ONE = LuaScript.fromClasspath(path("redrive_one"), functions("into_group"));

	static final LuaScript DELETE_DEAD_LETTER = script("delete_dead_letter");

	static final LuaScript PURGE = script("purge");

	static final LuaScript PAUSE = script("pause");

	static final LuaScript RESUME = script("resume");

	static final LuaScript PAUSED = script("paused");

	/** The field of the pause hash that pauses the whole queue. */
	static final String QUEUE_PAUSE = "queue";

	private static final byte[] TURN = utf8(QueuePriority.TURN);

	/** How long a settled token or cancel request id is kept so that a driver replay is recognised. */
	static final Duration SETTLED_RETENTION = Duration.ofMinutes(10);

	/**
	 * Most settled tokens and cancel request ids one queue keeps, the oldest going first: the bound
	 * {@code remember.lua} applies, so that the record's memory does not grow with the throughput.
	 */
	static final int SETTLED_MOST = 100_000;

	/** How long a finished batch's progress stays readable (and its record in Redis). */
	static final Duration FINISHED_BATCH_RETENTION = Duration.ofDays(1);

	/** Most messages one promote or requeue call moves, so that no script runs long whatever the backlog. */
	static final int MOVE_BATCH = 500;

	/** Most messages one claim takes. */
	static final int MAX_CLAIM = 1000;

	private static final byte[] SERVER_TIME = new byte[0];

	private static final byte[] SETTLED_MILLIS = number(SETTLED_RETENTION.toMillis());

	private static final byte[] MOVE_BATCH_BYTES = number(MOVE_BATCH);

	private static final byte[] BATCH_RETENTION_MILLIS = number(FINISHED_BATCH_RETENTION.toMillis());

	private static final byte[] NO_RESULT = new byte[0];

	private static final byte[] ONE = { '1' };

	private final ScriptExecutor executor;

	QueueScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/** @return whether a script call never blocks its caller (the shared native Lettuce connection) */
	boolean neverBlocks() {
		return this.executor.isNative();
	}

	/**
	 * Enqueues messages, each under its deduplication; one round trip however many.
	 * @return the server time and, per message, what the enqueue did and the id it concerns
	 */
	CompletionStage<Enqueued> enqueue(Keys keys, List<Outgoing> messages, @Nullable Long now) {
		int keyCount = Keys.WITH_LEVELS + 2 + Keys.GROUP_COUNT;
		byte[][] keysAndArgs = new byte[keyCount + 2 + messages.size() * 9][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.levels, 0, keysAndArgs, Keys.COUNT, keys.levels.length);
		int i = Keys.WITH_LEVELS;
		keysAndArgs[i++] = keys.unique;
		keysAndArgs[i++] = keys.windows;
		for (byte[] key : keys.groups) {
			keysAndArgs[i++] = key;
		}
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = keys.channelBytes;
		for (Outgoing message : messages) {
			keysAndArgs[i++] = utf8(message.id());
			keysAndArgs[i++] = message.payload();
			keysAndArgs[i++] = number(message.delayMillis());
			keysAndArgs[i++] = number(message.dueAtMillis());
			keysAndArgs[i++] = utf8(message.priority().code());
			keysAndArgs[i++] = utf8(message.deduplication());
			keysAndArgs[i++] = number(message.windowMillis());
			keysAndArgs[i++] = utf8(message.otherId());
			keysAndArgs[i++] = utf8(message.group());
		}
		return this.executor.<List<Object>>executeAsync(ENQUEUE, ReturnType.MULTI, keyCount, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ENQUEUE);
				EnqueueResult[] results = new EnqueueResult[messages.size()];
				for (int m = 0; m < results.length; m++) {
					long code = (Long) values.get(1 + 2 * m);
					String stored = text(values.get(2 + 2 * m));
					EnqueueResult.Outcome outcome = (code == 1) ? EnqueueResult.Outcome.ENQUEUED
							: (code == 2) ? EnqueueResult.Outcome.REPLACED : EnqueueResult.Outcome.DUPLICATE;
					results[m] = new EnqueueResult(stored.isEmpty() ? messages.get(m).id() : stored, outcome);
				}
				return new Enqueued((Long) values.get(0), results);
			});
	}

	/**
	 * Enqueues a flow, all or nothing: the parent waits for its children, which are placed as {@link #enqueue} places
	 * messages.
	 * @param policy the script's letter for the {@link ChildFailurePolicy}
	 * @return {@code null} when added, else the first id the queue held already (nothing added)
	 */
	CompletionStage<@Nullable String> enqueueFlow(Keys keys, Outgoing parent, List<Outgoing> children, String policy,
			@Nullable Long now) {
		byte[][] keysAndArgs = new byte[Keys.WITH_LEVELS + 1 + 3 + (1 + children.size()) * 5][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.levels, 0, keysAndArgs, Keys.COUNT, keys.levels.length);
		int i = Keys.WITH_LEVELS;
		keysAndArgs[i++] = keys.workflow[0];
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = keys.channelBytes;
		keysAndArgs[i++] = utf8(policy);
		i = placed(keysAndArgs, i, parent);
		for (Outgoing child : children) {
			i = placed(keysAndArgs, i, child);
		}
		return this.executor.<List<Object>>executeAsync(ENQUEUE_FLOW, ReturnType.MULTI, Keys.WITH_LEVELS + 1,
				keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ENQUEUE_FLOW);
				return ((Long) values.get(0) == 1L) ? null : text(values.get(1));
			});
	}

	/**
	 * Enqueues a batch, all or nothing: its members, placed as {@link #enqueue} places messages, and its callbacks.
	 * @param callbacks on death, complete and success: the priority letter and the stored payload, or {@code null}
	 * @return {@code null} when added, {@code ""} when the batch exists, else the first member id the queue held
	 * already (nothing added either way)
	 */
	CompletionStage<@Nullable String> enqueueBatch(Keys keys, String batchId, @Nullable Outgoing[] callbacks,
			List<Outgoing> members, @Nullable Long now) {
		byte[][] keysAndArgs = new byte[Keys.WITH_LEVELS + 1 + 6 + members.size() * 5][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.levels, 0, keysAndArgs, Keys.COUNT, keys.levels.length);
		int i = Keys.WITH_LEVELS;
		keysAndArgs[i++] = keys.workflow[0];
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = keys.channelBytes;
		keysAndArgs[i++] = utf8(batchId);
		for (Outgoing callback : callbacks) {
			if (callback == null) {
				keysAndArgs[i++] = NO_RESULT;
			}
			else {
				byte[] code = utf8(callback.priority().code());
				byte[] stored = new byte[code.length + callback.payload().length];
				System.arraycopy(code, 0, stored, 0, code.length);
				System.arraycopy(callback.payload(), 0, stored, code.length, callback.payload().length);
				keysAndArgs[i++] = stored;
			}
		}
		for (Outgoing member : members) {
			i = placed(keysAndArgs, i, member);
		}
		return this.executor.<List<Object>>executeAsync(ENQUEUE_BATCH, ReturnType.MULTI, Keys.WITH_LEVELS + 1,
				keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ENQUEUE_BATCH);
				return ((Long) values.get(0) == 1L) ? null : text(values.get(1));
			});
	}

	private static int placed(byte[][] keysAndArgs, int from, Outgoing message) {
		int i = from;
		keysAndArgs[i++] = utf8(message.id());
		keysAndArgs[i++] = message.payload();
		keysAndArgs[i++] = number(message.delayMillis());
		keysAndArgs[i++] = number(message.dueAtMillis());
		keysAndArgs[i++] = utf8(message.priority().code());
		return i;
	}

	/**
	 * @return per child of the parent's flow, in order: its id and what it did ({@code ""} not finished, {@code "s"}
	 * and its result's JSON, or {@code "f"} and its reason); empty when the parent has no flow
	 */
	CompletionStage<List<String[]>> flowChildren(Keys keys, String parentId) {
		return this.executor.<List<Object>>executeAsync(FLOW_CHILDREN, ReturnType.MULTI, 1,
				new byte[][] { keys.workflow[0], utf8(parentId) })
			.thenApply((reply) -> {
				List<Object> values = required(reply, FLOW_CHILDREN);
				List<String[]> children = new ArrayList<>(values.size() / 2);
				for (int i = 0; i + 1 < values.size(); i += 2) {
					children.add(new String[] { text(values.get(i)), text(values.get(i + 1)) });
				}
				return children;
			});
	}

	/** @return the batch's progress, or {@code null} when there is no such batch (any more) */
	CompletionStage<@Nullable BatchProgress> batchProgress(Keys keys, String batchId) {
		return this.executor.<List<Object>>executeAsync(BATCH_PROGRESS, ReturnType.MULTI, 1,
				new byte[][] { keys.workflow[0], utf8(batchId) })
			.thenApply((reply) -> {
				List<Object> values = required(reply, BATCH_PROGRESS);
				if (values.isEmpty()) {
					return null;
				}
				long finished = (Long) values.get(4);
				return new BatchProgress(batchId, (Long) values.get(0), (Long) values.get(1), (Long) values.get(2),
						java.time.Instant.ofEpochMilli((Long) values.get(3)),
						(finished < 0) ? null : java.time.Instant.ofEpochMilli(finished));
			});
	}

	/** @return up to {@code max} unfinished batches, found among about {@code scan} entries of the workflow hash */
	CompletionStage<List<BatchProgress>> batchesInProgress(Keys keys, int max, int scan) {
		return this.executor.<List<Object>>executeAsync(BATCHES, ReturnType.MULTI, 1,
				new byte[][] { keys.workflow[0], number(max), number(scan) })
			.thenApply((reply) -> {
				List<Object> values = required(reply, BATCHES);
				List<BatchProgress> batches = new ArrayList<>();
				for (int i = 2; i + 4 < values.size(); i += 5) {
					batches.add(new BatchProgress(text(values.get(i)), (Long) values.get(i + 1),
							(Long) values.get(i + 2), (Long) values.get(i + 3),
							java.time.Instant.ofEpochMilli((Long) values.get(i + 4)), null));
				}
				return batches;
			});
	}

	/**
	 * @return every group met among the first {@code groups} in the turns and the first {@code inFlight} messages in
	 * flight, unsorted
	 */
	CompletionStage<List<GroupStats>> groupStats(Keys keys, int groups, int inFlight) {
		return this.executor.<List<Object>>executeAsync(GROUPS, ReturnType.MULTI, 4,
				new byte[][] { keys.groups[0], keys.groups[1], keys.groups[2], keys.all[2], number(groups),
						number(inFlight) })
			.thenApply((reply) -> {
				List<Object> values = required(reply, GROUPS);
				List<GroupStats> found = new ArrayList<>();
				for (int i = 2; i + 2 < values.size(); i += 3) {
					found.add(new GroupStats(text(values.get(i)), (Long) values.get(i + 1), (Long) values.get(i + 2)));
				}
				return found;
			});
	}

	/** Moves up to {@link #MOVE_BATCH} due messages, of every priority, to ready. */
	CompletionStage<Promoted> promote(Keys keys, @Nullable Long now) {
		return promote(keys, false, now);
	}

	/** {@link #promote(Keys, Long)} in a queue with groups ({@code groups}), a grouped message into its group. */
	CompletionStage<Promoted> promote(Keys keys, boolean groups, @Nullable Long now) {
		byte[][] keysAndArgs = new byte[Keys.WITH_LEVELS + 4 + 3][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.levels, 0, keysAndArgs, Keys.COUNT, keys.levels.length);
		int i = Keys.WITH_LEVELS;
		keysAndArgs[i++] = keys.groups[0];
		keysAndArgs[i++] = keys.groups[1];
		keysAndArgs[i++] = keys.groups[2];
		keysAndArgs[i++] = keys.groups[4];
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = MOVE_BATCH_BYTES;
		keysAndArgs[i++] = groups ? ONE : NO_RESULT;
		return this.executor.<List<Object>>executeAsync(PROMOTE, ReturnType.MULTI, Keys.WITH_LEVELS + 4, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, PROMOTE);
				return new Promoted((Long) values.get(0), (Long) values.get(1), (Long) values.get(2),
						(Long) values.get(3));
			});
	}

	/** Claims up to {@code max} ready messages under fresh tokens, with no limit and no listener of its own. */
	CompletionStage<Claimed> claim(Keys keys, String requestId, int max, long visibilityMillis, @Nullable Long now) {
		return claim(keys, requestId, max, visibilityMillis, Admission.NONE, now);
	}

	/**
	 * Claims up to {@code max} ready messages under fresh tokens, in the priorities' weighted turn, unless the queue
	 * or the listener is paused, and no more than the limits admit; a replay of the request returns the same.
	 */
	CompletionStage<Claimed> claim(Keys keys, String requestId, int max, long visibilityMillis, Admission admission,
			@Nullable Long now) {
		QueueGroups groups = admission.groups();
		Set<String> named = new LinkedHashSet<>();
		if (groups != null) {
			named.addAll(groups.overrides().keySet());
			named.addAll(groups.rateLimitOverrides().keySet());
		}
		byte[][] keysAndArgs = new byte[Keys.COUNT + 12 + 13 + named.size() * 3][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		int i = Keys.COUNT;
		keysAndArgs[i++] = keys.claimRecord(requestId);
		keysAndArgs[i++] = keys.levels[1];
		keysAndArgs[i++] = keys.levels[3];
		keysAndArgs[i++] = keys.paused;
		keysAndArgs[i++] = keys.rateLog;
		keysAndArgs[i++] = keys.turn;
		keysAndArgs[i++] = keys.groups[1];
		keysAndArgs[i++] = keys.groups[2];
		keysAndArgs[i++] = keys.groups[3];
		keysAndArgs[i++] = keys.groups[4];
		keysAndArgs[i++] = keys.groupRate[0];
		keysAndArgs[i++] = keys.groupRate[1];
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = utf8(requestId);
		keysAndArgs[i++] = number(max);
		keysAndArgs[i++] = number(visibilityMillis);
		keysAndArgs[i++] = utf8(admission.listener());
		keysAndArgs[i++] = number(admission.maxInFlight());
		keysAndArgs[i++] = number(admission.rateLimit());
		keysAndArgs[i++] = number(admission.ratePeriodMillis());
		keysAndArgs[i++] = TURN;
		keysAndArgs[i++] = (groups != null) ? ONE : NO_RESULT;
		keysAndArgs[i++] = number((groups != null) ? groups.maxInFlight() : 0);
		keysAndArgs[i++] = number((groups != null) ? groups.rateLimit() : 0);
		keysAndArgs[i++] = number((groups != null) ? groups.rateLimitPeriod().toMillis() : 1);
		if (groups != null) {
			for (String group : named) {
				keysAndArgs[i++] = utf8(group);
				keysAndArgs[i++] = number(groups.maxInFlight(group));
				keysAndArgs[i++] = number(groups.rateLimit(group));
			}
		}
		return this.executor.<List<Object>>executeAsync(CLAIM, ReturnType.MULTI, Keys.COUNT + 12, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, CLAIM);
				List<ClaimedMessage> messages = new ArrayList<>((values.size() - 4) / 6);
				for (int m = 4; m + 5 < values.size(); m += 6) {
					messages.add(new ClaimedMessage(text(values.get(m)), (byte[]) values.get(m + 1),
							(int) (long) (Long) values.get(m + 2), (Long) values.get(m + 3), text(values.get(m + 4)),
							QueuePriority.ofCode(text(values.get(m + 5)))));
				}
				return new Claimed((Long) values.get(0), messages, HeldBack.values()[(int) (long) (Long) values.get(1)],
						(Long) values.get(2), (Long) values.get(3));
			});
	}

	/**
	 * Pauses the queue, or one listener of it, for every consumer.
	 * @param field {@link #QUEUE_PAUSE} or {@link Keys#listenerPause(String)}
	 * @return the server time and whether it was not paused before
	 */
	CompletionStage<Boolean> pause(Keys keys, String field, @Nullable Long now) {
		return this.executor.<List<Object>>executeAsync(PAUSE, ReturnType.MULTI, 1,
				new byte[][] { keys.paused, time(now), utf8(field) })
			.thenApply((reply) -> (Long) required(reply, PAUSE).get(1) == 1L);
	}

	/** @return whether the queue, or the listener, was paused */
	CompletionStage<Boolean> resume(Keys keys, String field) {
		return this.executor.<Long>executeAsync(RESUME, ReturnType.INTEGER, 1,
				new byte[][] { keys.paused, utf8(field), keys.channelBytes })
			.thenApply((reply) -> required(reply, RESUME) == 1L);
	}

	/** @return since when the queue, or the listener, is paused (ms), or -1 */
	CompletionStage<Long> paused(Keys keys, String field) {
		return this.executor.<Long>executeAsync(PAUSED, ReturnType.INTEGER, 1, new byte[][] { keys.paused, utf8(field) })
			.thenApply((reply) -> required(reply, PAUSED));
	}

	/** @return {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE} */
	CompletionStage<Settlement> ack(Keys keys, String id, String token, @Nullable Long now) {
		return ack(keys, id, token, null, now);
	}

	/**
	 * Acknowledges a delivery with the handler's result, which a flow's parent reads.
	 * @param result the result's JSON, or {@code null} for none
	 * @return {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE}
	 */
	CompletionStage<Settlement> ack(Keys keys, String id, String token, @Nullable String result,
			@Nullable Long now) {
		return settling(ACK, keys, time(now), utf8(id), utf8(token), SETTLED_MILLIS,
				(result != null) ? utf8(result) : NO_RESULT, keys.channelBytes, keys.cancelChannelBytes,
				BATCH_RETENTION_MILLIS);
	}

	/**
	 * Acknowledges several deliveries in one call, each as {@link #ack} would.
	 * @param deliveries id and token, and optionally the handler's result as JSON (for a flow's parent)
	 * @return per delivery {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE}
	 */
	CompletionStage<Settlement[]> ackAll(Keys keys, List<String[]> deliveries, @Nullable Long now) {
		byte[][] keysAndArgs = new byte[Keys.SETTLING + 5 + deliveries.size() * 3][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.workflow, 0, keysAndArgs, Keys.COUNT, keys.workflow.length);
		keysAndArgs[Keys.SETTLING - 1] = keys.groups[0];
		int i = Keys.SETTLING;
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = SETTLED_MILLIS;
		keysAndArgs[i++] = keys.channelBytes;
		keysAndArgs[i++] = keys.cancelChannelBytes;
		keysAndArgs[i++] = BATCH_RETENTION_MILLIS;
		for (String[] delivery : deliveries) {
			keysAndArgs[i++] = utf8(delivery[0]);
			keysAndArgs[i++] = utf8(delivery[1]);
			keysAndArgs[i++] = (delivery.length > 2) ? utf8(delivery[2]) : NO_RESULT;
		}
		return this.executor.<List<Object>>executeAsync(ACK_MANY, ReturnType.MULTI, Keys.SETTLING, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ACK_MANY);
				Settlement[] settled = new Settlement[values.size()];
				for (int m = 0; m < settled.length; m++) {
					settled[m] = Settlement.of((Long) values.get(m), ACK_MANY);
				}
				return settled;
			});
	}

	/**
	 * Fails a delivery: delayed for another, or dead-lettered once it had {@code maxDeliveries}.
	 * @return {@link Settled#DONE} (delayed), {@link Settled#DEAD_LETTERED}, {@link Settled#REPLAYED} or
	 * {@link Settled#STALE}
	 */
	CompletionStage<Settlement> retry(Keys keys, String id, String token, long delayMillis, QueueSpec spec,
			String reason, @Nullable Long now) {
		return settling(RETRY, keys, time(now), utf8(id), utf8(token), number(delayMillis),
				number(spec.maxDeliveries()), utf8(reason), SETTLED_MILLIS,
				number(spec.deadLetterRetention().toMillis()), number(spec.deadLetterMaxSize()), keys.channelBytes,
				keys.cancelChannelBytes, BATCH_RETENTION_MILLIS);
	}

	/** @return {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE} */
	CompletionStage<Settlement> deadLetter(Keys keys, String id, String token, String reason, QueueSpec spec,
			@Nullable Long now) {
		return settling(DEAD_LETTER, keys, time(now), utf8(id), utf8(token), utf8(reason), SETTLED_MILLIS,
				number(spec.deadLetterRetention().toMillis()), number(spec.deadLetterMaxSize()), keys.channelBytes,
				keys.cancelChannelBytes, BATCH_RETENTION_MILLIS);
	}

	/**
	 * Gives a delivery back at once, uncounted: to the head of ready, or in a queue with {@code groups}, a message of a
	 * group to the head of its group.
	 */
	CompletionStage<Settlement> release(Keys keys, String id, String token, boolean groups, @Nullable Long now) {
		byte[][] keysAndArgs = settlingKeysAnd(keys, keys.groups[1], keys.groups[2], keys.groups[4], time(now), utf8(id),
				utf8(token), SETTLED_MILLIS, keys.channelBytes, keys.cancelChannelBytes, BATCH_RETENTION_MILLIS,
				groups ? ONE : NO_RESULT);
		return this.executor.<Long>executeAsync(RELEASE, ReturnType.INTEGER, Keys.SETTLING + 3, keysAndArgs)
			.thenApply((reply) -> Settlement.of(required(reply, RELEASE), RELEASE));
	}

	/**
	 * Extends the visibility of deliveries.
	 * @param deliveries pairs of id and token
	 * @return per pair whether it was extended ({@code false}: stale)
	 */
	CompletionStage<boolean[]> extend(Keys keys, List<String[]> deliveries, long visibilityMillis,
			@Nullable Long now) {
		byte[][] keysAndArgs = keysAnd(keys, 2 + deliveries.size() * 2);
		int i = Keys.COUNT;
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = number(visibilityMillis);
		for (String[] delivery : deliveries) {
			keysAndArgs[i++] = utf8(delivery[0]);
			keysAndArgs[i++] = utf8(delivery[1]);
		}
		return this.executor.<List<Object>>executeAsync(EXTEND, ReturnType.MULTI, Keys.COUNT, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, EXTEND);
				boolean[] extended = new boolean[values.size()];
				for (int m = 0; m < extended.length; m++) {
					extended[m] = (Long) values.get(m) == 1L;
				}
				return extended;
			});
	}

	/**
	 * Takes back up to {@link #MOVE_BATCH} deliveries whose visibility passed.
	 * @return requeued, dead-lettered (delivery limit) and cancelled counts, then how many times each
	 * {@link Settlement#events() workflow event} happened, in the order of its bits
	 */
	CompletionStage<long[]> requeueExpired(Keys keys, QueueSpec spec, @Nullable Long now) {
		return this.executor.<List<Object>>executeAsync(REQUEUE, ReturnType.MULTI, Keys.SETTLING + 3,
				settlingKeysAnd(keys, keys.groups[1], keys.groups[2], keys.groups[4], time(now), MOVE_BATCH_BYTES,
						number(spec.maxDeliveries()), number(spec.deadLetterRetention().toMillis()),
						number(spec.deadLetterMaxSize()), keys.channelBytes, keys.cancelChannelBytes,
						BATCH_RETENTION_MILLIS, (spec.groups() != null) ? ONE : NO_RESULT))
			.thenApply((reply) -> {
				List<Object> values = required(reply, REQUEUE);
				long[] counts = new long[values.size()];
				for (int c = 0; c < counts.length; c++) {
					counts[c] = (Long) values.get(c);
				}
				return counts;
			});
	}

	/**
	 * @return {@link Settled#DONE} (removed before delivery), {@link Settled#CANCELLED} (in flight: marked, and
	 * its id published on the cancel channel), {@link Settled#REPLAYED} or {@link Settled#STALE} (nothing)
	 */
	CompletionStage<Settlement> cancel(Keys keys, String id, String requestId, @Nullable Long now) {
		byte[][] settling = settlingKeysAnd(keys, keys.groups[1], time(now), utf8(id), utf8(requestId),
				SETTLED_MILLIS, keys.cancelChannelBytes, keys.channelBytes, BATCH_RETENTION_MILLIS);
		return this.executor.<Long>executeAsync(CANCEL, ReturnType.INTEGER, Keys.SETTLING + 1, settling)
			.thenApply((reply) -> Settlement.of(required(reply, CANCEL), CANCEL));
	}

	CompletionStage<QueueStats> stats(Keys keys, @Nullable Long now) {
		byte[][] keysAndArgs = levelKeysAnd(keys, 3);
		keysAndArgs[Keys.WITH_LEVELS] = keys.groups[1];
		keysAndArgs[Keys.WITH_LEVELS + 1] = keys.workflow[0];
		keysAndArgs[Keys.WITH_LEVELS + 2] = time(now);
		return this.executor.<List<Object>>executeAsync(STATS, ReturnType.MULTI, Keys.WITH_LEVELS + 2, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, STATS);
				long serverNow = (Long) values.get(0);
				long oldest = (Long) values.get(5);
				return new QueueStats((Long) values.get(1), (Long) values.get(2), (Long) values.get(3),
						(Long) values.get(4),
						(oldest < 0) ? Duration.ZERO : Duration.ofMillis(Math.max(0, serverNow - oldest)),
						(Long) values.get(6), (Long) values.get(7));
			});
	}

	CompletionStage<List<DeadLetter>> deadLetters(Keys keys, int max) {
		return this.executor.<List<Object>>executeAsync(DEAD_LETTERS, ReturnType.MULTI, Keys.COUNT,
				keysAnd(keys, number(max)))
			.thenApply((reply) -> {
				List<Object> values = required(reply, DEAD_LETTERS);
				List<DeadLetter> letters = new ArrayList<>(values.size() / 6);
				for (int i = 0; i + 5 < values.size(); i += 6) {
					byte[] stored = (byte[]) values.get(i + 1);
					letters.add(new DeadLetter(text(values.get(i)), text(PayloadCodec.payloadOf(stored)),
							text(values.get(i + 2)), java.time.Instant.ofEpochMilli((Long) values.get(i + 3)),
							(int) (long) (Long) values.get(i + 4), PayloadCodec.headersOf(stored),
							QueuePriority.ofCode(text(values.get(i + 5)))));
				}
				return letters;
			});
	}

	/**
	 * @param groups whether the queue has groups: a message of a group goes to the end of its group
	 * @return how many dead letters went back to ready
	 */
	CompletionStage<Long> redrive(Keys keys, int max, boolean groups, @Nullable Long now) {
		return redriving(REDRIVE, keys, time(now), number(max), keys.channelBytes, groups ? ONE : NO_RESULT);
	}

	/**
	 * @param groups whether the queue has groups: a message of a group goes to the end of its group
	 * @return whether the dead letter went back to ready
	 */
	CompletionStage<Boolean> redriveOne(Keys keys, String id, boolean groups, @Nullable Long now) {
		return redriving(REDRIVE_ONE, keys, time(now), utf8(id), keys.channelBytes, groups ? ONE : NO_RESULT)
			.thenApply((moved) -> moved == 1);
	}

	// The eight keys, then the group hash, the groups' ready zset, the turns and the sequence (see into_group.lua),
	// then ready of the high and of the low priority (a dead letter goes back to its priority's list).
	private CompletionStage<Long> redriving(LuaScript script, Keys keys, byte[]... args) {
		byte[][] keysAndArgs = keysAnd(keys, 6 + args.length);
		keysAndArgs[Keys.COUNT] = keys.groups[0];
		keysAndArgs[Keys.COUNT + 1] = keys.groups[1];
		keysAndArgs[Keys.COUNT + 2] = keys.groups[2];
		keysAndArgs[Keys.COUNT + 3] = keys.groups[4];
		keysAndArgs[Keys.COUNT + 4] = keys.levels[1];
		keysAndArgs[Keys.COUNT + 5] = keys.levels[3];
		System.arraycopy(args, 0, keysAndArgs, Keys.COUNT + 6, args.length);
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, Keys.COUNT + 6, keysAndArgs)
			.thenApply((reply) -> required(reply, script));
	}

	/** @return whether the dead letter was deleted */
	CompletionStage<Boolean> deleteDeadLetter(Keys keys, String id) {
		byte[][] keysAndId = keysAnd(keys, keys.groups[0], utf8(id));
		return this.executor.<Long>executeAsync(DELETE_DEAD_LETTER, ReturnType.INTEGER, Keys.COUNT + 1, keysAndId)
			.thenApply((deleted) -> required(deleted, DELETE_DEAD_LETTER) == 1);
	}

	/** @return how many messages there were */
	CompletionStage<Long> purge(Keys keys) {
		byte[][] keysAndUnique = levelKeysAnd(keys, 3 + Keys.GROUP_COUNT);
		keysAndUnique[Keys.WITH_LEVELS] = keys.unique;
		keysAndUnique[Keys.WITH_LEVELS + 1] = keys.workflow[0];
		keysAndUnique[Keys.WITH_LEVELS + 2] = keys.workflow[1];
		System.arraycopy(keys.groups, 0, keysAndUnique, Keys.WITH_LEVELS + 3, Keys.GROUP_COUNT);
		return this.executor.<Long>executeAsync(PURGE, ReturnType.INTEGER, Keys.WITH_LEVELS + 3 + Keys.GROUP_COUNT,
				keysAndUnique)
			.thenApply((reply) -> required(reply, PURGE));
	}

	/** A settling script: the eight keys and the workflow keys, then the arguments. */
	private CompletionStage<Settlement> settling(LuaScript script, Keys keys, byte[]... args) {
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, Keys.SETTLING, settlingKeysAnd(keys, args))
			.thenApply((reply) -> Settlement.of(required(reply, script), script));
	}

	private static byte[][] settlingKeysAnd(Keys keys, byte[]... args) {
		byte[][] keysAndArgs = new byte[Keys.SETTLING + args.length][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.workflow, 0, keysAndArgs, Keys.COUNT, keys.workflow.length);
		keysAndArgs[Keys.SETTLING - 1] = keys.groups[0];
		System.arraycopy(args, 0, keysAndArgs, Keys.SETTLING, args.length);
		return keysAndArgs;
	}

	private CompletionStage<Long> integer(LuaScript script, byte[][] keysAndArgs) {
		return this.executor.<Long>executeAsync(script, ReturnType.INTEGER, Keys.COUNT, keysAndArgs)
			.thenApply((reply) -> required(reply, script));
	}

	private static byte[][] keysAnd(Keys keys, int argumentCount) {
		byte[][] keysAndArgs = new byte[Keys.COUNT + argumentCount][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		return keysAndArgs;
	}

	private static byte[][] keysAnd(Keys keys, byte[]... args) {
		byte[][] keysAndArgs = keysAnd(keys, args.length);
		System.arraycopy(args, 0, keysAndArgs, Keys.COUNT, args.length);
		return keysAndArgs;
	}

	/** The eight keys, then the delayed and ready keys of the high and the low priority. */
	private static byte[][] levelKeysAnd(Keys keys, int argumentCount) {
		byte[][] keysAndArgs = new byte[Keys.WITH_LEVELS + argumentCount][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		System.arraycopy(keys.levels, 0, keysAndArgs, Keys.COUNT, keys.levels.length);
		return keysAndArgs;
	}

	private static byte[][] levelKeysAnd(Keys keys, byte[]... args) {
		byte[][] keysAndArgs = levelKeysAnd(keys, args.length);
		System.arraycopy(args, 0, keysAndArgs, Keys.WITH_LEVELS, args.length);
		return keysAndArgs;
	}

	private static <T> T required(@Nullable T reply, LuaScript script) {
		if (reply == null) {
			throw new IllegalStateException("Redis returned no reply to " + script);
		}
		return reply;
	}

	private static byte[] time(@Nullable Long now) {
		return (now != null) ? number(now) : SERVER_TIME;
	}

	private static LuaScript script(String name) {
		return LuaScript.fromClasspath(path(name));
	}

	/**
	 * A script that settles messages, with the flow and batch bookkeeping as its function {@code workflow} (and
	 * {@code earliest_due}, which it calls) and the bounded record of what it settled as its function
	 * {@code remember}.
	 */
	private static LuaScript settling(String name) {
		return LuaScript.fromClasspath(path(name), functions("earliest_due", "workflow", "remember"));
	}

	/** A settling script that gives deliveries back at once, with {@code into_group} besides {@link #settling}'s. */
	private static LuaScript givingBack(String name) {
		return LuaScript.fromClasspath(path(name), functions("earliest_due", "workflow", "into_group", "remember"));
	}

	/**
	 * A script that adds a flow or a batch, with the placing of its messages as its function {@code enqueue_members}
	 * (and {@code earliest_due}, which it calls).
	 */
	private static LuaScript withMembers(String name) {
		return LuaScript.fromClasspath(path(name), functions("earliest_due", "enqueue_members"));
	}

	/** @return the queue scripts of these names as functions, in this order: one calls only those before it */
	private static Map<String, String> functions(String... names) {
		Map<String, String> functions = new LinkedHashMap<>();
		for (String name : names) {
			functions.put(name, path(name));
		}
		return functions;
	}

	private static String path(String name) {
		return "META-INF/redis-kit/scripts/queue/" + name + ".lua";
	}

	static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static String text(Object value) {
		return new String((byte[]) value, StandardCharsets.UTF_8);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * The eight keys of one queue and its wake-up channel, all in the queue name's hash slot, with the keys of its
	 * other priorities and of its admission rules.
	 */
	static final class Keys {

		static final int COUNT = 8;

		/** The eight keys and the four of the high and low priorities. */
		static final int WITH_LEVELS = COUNT + 4;

		/** How many {@link #groups} keys. */
		static final int GROUP_COUNT = 5;

		/** The eight keys, the eight {@link #workflow} keys and the group hash: what the scripts that settle messages take. */
		static final int SETTLING = COUNT + 9;

		/**
		 * delayed, ready, in-flight, dead, meta, payloads, reasons, settled: the order every script takes. delayed
		 * and ready are the normal priority's, except in the keys {@link #of(QueuePriority) of another priority}.
		 */
		final byte[][] all;

		/** delayed and ready of the high priority, then of the low one. */
		final byte[][] levels;

		/** The pause hash: field {@code queue}, or {@code listener:<id>}, to the time it was paused at. */
		final byte[] paused;

		/** The rate limit's sliding log of claims. */
		final byte[] rateLog;

		/** Where the next claim starts in the priorities' weighted turn. */
		final byte[] turn;

		/** Deduplication: an id given by the caller to the id its latest message is stored under, where they differ. */
		final byte[] unique;

		/** Deduplication: an id given by the caller to the end of its throttle or debounce window. */
		final byte[] windows;

		/**
		 * Flows and batches: the workflow hash, the finished batches, then delayed and ready of the normal, high and
		 * low priorities (whatever {@link #all} holds), where a released parent or a batch's callback is placed.
		 */
		final byte[][] workflow;

		/**
		 * Groups ({@link QueueGroups}): the group hash (id to its group), the groups' ready zset, the turns, the
		 * running zset and the sequence (see promote.lua and claim.lua).
		 */
		final byte[][] groups;

		/**
		 * The groups' rate limits ({@link QueueGroups#rateLimit()}): the log of claims from a group with one, and the
		 * count of each group's entries in it (see claim.lua). Rate state, like {@link #rateLog}: purge leaves it.
		 */
		final byte[][] groupRate;

		final String channel;

		final byte[] channelBytes;

		/** Where cancel.lua publishes the id of a message cancelled in flight. */
		final String cancelChannel;

		final byte[] cancelChannelBytes;

		private final String claimPrefix;

		private final Keys[] byPriority;

		private Keys(byte[][] all, byte[][] levels, byte[] paused, byte[] rateLog, byte[] turn, byte[] unique,
				byte[] windows, byte[][] workflow, byte[][] groups, byte[][] groupRate, String channel,
				String claimPrefix) {
			this.all = all;
			this.levels = levels;
			this.paused = paused;
			this.rateLog = rateLog;
			this.turn = turn;
			this.unique = unique;
			this.windows = windows;
			this.workflow = workflow;
			this.groups = groups;
			this.groupRate = groupRate;
			this.channel = channel;
			this.channelBytes = utf8(channel);
			// The wake-up channel's sibling, ':cancel' for ':wake'.
			this.cancelChannel = channel.substring(0, channel.length() - "wake".length()) + "cancel";
			this.cancelChannelBytes = utf8(this.cancelChannel);
			this.claimPrefix = claimPrefix;
			this.byPriority = new Keys[] { this, this, this };
		}

		static Keys of(KeyNaming naming, String queue) {
			String[] names = { naming.key("queue", queue, "delayed"), naming.key("queue", queue, "ready"),
					naming.key("queue", queue, "in-flight"), naming.key("queue", queue, "dead"),
					naming.key("queue", queue, "meta"), naming.key("queue", queue, "payloads"),
					naming.key("queue", queue, "reasons"), naming.key("queue", queue, "settled") };
			byte[][] all = new byte[COUNT][];
			for (int i = 0; i < COUNT; i++) {
				all[i] = utf8(names[i]);
			}
			byte[][] levels = { utf8(naming.key("queue", queue, "delayed:high")),
					utf8(naming.key("queue", queue, "ready:high")), utf8(naming.key("queue", queue, "delayed:low")),
					utf8(naming.key("queue", queue, "ready:low")) };
			byte[][] workflow = { utf8(naming.key("queue", queue, "workflow")),
					utf8(naming.key("queue", queue, "batches-finished")), all[0], all[1], levels[0], levels[1], levels[2],
					levels[3] };
			Keys keys = new Keys(all, levels, utf8(naming.key("queue", queue, "paused")),
					utf8(naming.key("queue", queue, "rate")), utf8(naming.key("queue", queue, "turn")),
					utf8(naming.key("queue", queue, "unique")), utf8(naming.key("queue", queue, "windows")), workflow,
					new byte[][] { utf8(naming.key("queue", queue, "group-of")),
							utf8(naming.key("queue", queue, "group-ready")),
							utf8(naming.key("queue", queue, "group-turns")),
							utf8(naming.key("queue", queue, "group-running")),
							utf8(naming.key("queue", queue, "group-sequence")) },
					new byte[][] { utf8(naming.key("queue", queue, "group-rate")),
							utf8(naming.key("queue", queue, "group-rate-counts")) },
					naming.key("queue", queue, "wake"), naming.key("queue", queue, "claim:"));
			keys.byPriority[QueuePriority.HIGH.ordinal()] = keys.withLevel(levels[0], levels[1]);
			keys.byPriority[QueuePriority.LOW.ordinal()] = keys.withLevel(levels[2], levels[3]);
			return keys;
		}

		private Keys withLevel(byte[] delayed, byte[] ready) {
			byte[][] swapped = this.all.clone();
			swapped[0] = delayed;
			swapped[1] = ready;
			return new Keys(swapped, this.levels, this.paused, this.rateLog, this.turn, this.unique, this.windows,
					this.workflow, this.groups, this.groupRate, this.channel, this.claimPrefix);
		}

		/**
		 * The keys whose delayed and ready are a priority's, for the scripts that put one delivery back (retry,
		 * release), so that it keeps its priority.
		 * @param priority the delivery's priority
		 * @return the keys
		 */
		Keys of(QueuePriority priority) {
			return this.byPriority[priority.ordinal()];
		}

		/** @return the field of the pause hash that pauses one listener */
		static String listenerPause(String listener) {
			return "listener:" + listener;
		}

		/** The record of one claim request, kept for the visibility timeout so that a replay finds it. */
		byte[] claimRecord(String requestId) {
			return utf8(this.claimPrefix + requestId);
		}

		String key(int index) {
			return new String(this.all[index], StandardCharsets.UTF_8);
		}

	}

	/**
	 * One message to enqueue: due at {@code max(server now + delayMillis, dueAtMillis)}.
	 * @param id the message id
	 * @param payload the encoded payload
	 * @param delayMillis delay from the server's now
	 * @param dueAtMillis an absolute due time in ms since the epoch, or 0
	 * @param priority its priority
	 * @param deduplication the script's letter for its {@link Deduplication} mode, or {@code ""} for a generated id
	 * @param windowMillis the throttle or debounce window, or 0
	 * @param otherId the id to store it under when an earlier message of {@code id} is still in the queue, or
	 * {@code ""} where that cannot happen
	 * @param group its group, or {@code ""} for none
	 */
	record Outgoing(String id, byte[] payload, long delayMillis, long dueAtMillis, QueuePriority priority,
			String deduplication, long windowMillis, String otherId, String group) {

		Outgoing(String id, byte[] payload, long delayMillis, long dueAtMillis, QueuePriority priority) {
			this(id, payload, delayMillis, dueAtMillis, priority, "", 0, "", "");
		}

		/** @return this message in a group ({@code null}: as it is) */
		Outgoing inGroup(@Nullable String group) {
			return (group == null) ? this : new Outgoing(this.id, this.payload, this.delayMillis, this.dueAtMillis,
					this.priority, this.deduplication, this.windowMillis, this.otherId, group);
		}

		Outgoing(String id, byte[] payload, long delayMillis, long dueAtMillis) {
			this(id, payload, delayMillis, dueAtMillis, QueuePriority.NORMAL);
		}

		/** @return this message under a deduplication of a caller-chosen id */
		Outgoing deduplicated(Deduplication deduplication, String otherId) {
			return new Outgoing(this.id, this.payload, this.delayMillis, this.dueAtMillis, this.priority,
					deduplication.code(), deduplication.window().toMillis(),
					(deduplication.mode() == Deduplication.Mode.UNTIL_FINISHED) ? "" : otherId, this.group);
		}

	}

	/**
	 * The reply of an enqueue.
	 * @param serverMillis the server's time
	 * @param results per message, what the enqueue did
	 */
	record Enqueued(long serverMillis, EnqueueResult[] results) {

		/** @return per message, whether it was added */
		boolean[] added() {
			boolean[] added = new boolean[this.results.length];
			for (int i = 0; i < added.length; i++) {
				added[i] = this.results[i].enqueued();
			}
			return added;
		}

	}

	/**
	 * The reply of a promotion.
	 * @param moved messages moved to ready
	 * @param nextDueMillis the earliest due time still delayed, or -1
	 * @param serverMillis the server's time
	 * @param ready ready messages now
	 */
	record Promoted(long moved, long nextDueMillis, long serverMillis, long ready) {
	}

	/**
	 * The reply of a claim.
	 * @param serverMillis the server's time at the claim
	 * @param messages the messages claimed
	 * @param heldBy what held ready messages back, if anything
	 * @param heldBack how many ready messages the claim could have taken and did not, because of {@code heldBy}
	 * @param retryAfterMillis when {@code heldBy} is the queue's rate limit, how long until it admits one message; when
	 * it is the groups' rate limits, until the oldest entry of their log leaves the window; else 0
	 */
	record Claimed(long serverMillis, List<ClaimedMessage> messages, HeldBack heldBy, long heldBack,
			long retryAfterMillis) {

		Claimed(long serverMillis, List<ClaimedMessage> messages) {
			this(serverMillis, messages, HeldBack.NOTHING, 0, 0);
		}

	}

	/** What held a claim back, in the order the claim script decides. */
	enum HeldBack {

		/** Nothing: the claim took what it asked for or what was ready. */
		NOTHING,

		/** The queue or the listener is paused: nothing was taken. */
		PAUSED,

		/** The queue's limit of messages in flight across consumers. */
		MAX_IN_FLIGHT,

		/** The queue's rate limit. */
		RATE_LIMIT,

		/** The limits of messages in flight of the groups whose turn it was ({@link QueueGroups}). */
		GROUP_LIMIT,

		/** The rate limits of the groups whose turn it was ({@link QueueGroups#rateLimit()}). */
		GROUP_RATE

	}

	/**
	 * The admission rules a claim applies besides a pause of the whole queue.
	 * @param listener the id of the listener that claims, whose own pause applies, or {@code ""}
	 * @param maxInFlight most messages in flight across consumers, or 0
	 * @param rateLimit most claimed per period, or 0
	 * @param ratePeriodMillis the period of the rate limit
	 * @param groups the queue's groups, or {@code null} for a queue without
	 */
	record Admission(String listener, int maxInFlight, long rateLimit, long ratePeriodMillis,
			@Nullable QueueGroups groups) {

		static final Admission NONE = new Admission("", 0, 0, 1);

		Admission(String listener, int maxInFlight, long rateLimit, long ratePeriodMillis) {
			this(listener, maxInFlight, rateLimit, ratePeriodMillis, null);
		}

		static Admission of(QueueSpec spec, @Nullable String listener) {
			return new Admission((listener != null) ? listener : "", spec.maxInFlight(), spec.rateLimit(),
					spec.rateLimitPeriod().toMillis(), spec.groups());
		}

		/** @return these rules in a queue with {@code groups} */
		Admission withGroups(QueueGroups groups) {
			return new Admission(this.listener, this.maxInFlight, this.rateLimit, this.ratePeriodMillis, groups);
		}

	}

	/**
	 * One claimed message as stored.
	 * @param id its id
	 * @param payload its encoded payload
	 * @param deliveries deliveries so far, this one included
	 * @param dueMillis when it became due
	 * @param token this delivery's token
	 * @param priority its priority
	 */
	record ClaimedMessage(String id, byte[] payload, int deliveries, long dueMillis, String token,
			QueuePriority priority) {

		ClaimedMessage(String id, byte[] payload, int deliveries, long dueMillis, String token) {
			this(id, payload, deliveries, dueMillis, token, QueuePriority.NORMAL);
		}

	}

	/**
	 * What a settling call (ack, retry, dead-letter, release, cancel) did to the message, and what that did to its flow
	 * or batch.
	 * @param outcome what it did to the message
	 * @param events what it did to the message's flow or batch (workflow.lua), as bits: 1 its parent released because
	 * every child finished, 2 its parent released by {@link ChildFailurePolicy#CONTINUE}, 4 its parent dead-lettered by
	 * {@link ChildFailurePolicy#FAIL} (the order of {@link QueueFlow.ParentRelease}), then 8 its batch's first failure,
	 * 16 its batch finished, 32 its batch succeeded (the order of {@link QueueBatch.Event}); 0 for none
	 */
	record Settlement(Settled outcome, int events) {

		/** The reply of a settling script: the outcome's code plus 8 times the events. */
		static Settlement of(long reply, LuaScript script) {
			return new Settlement(Settled.of(reply & 7, script), (int) (reply >>> 3));
		}

		/** @return whether the settling released its flow's parent in this way */
		boolean has(QueueFlow.ParentRelease release) {
			return (this.events & (1 << release.ordinal())) != 0;
		}

		/** @return whether the settling brought its batch to this event */
		boolean has(QueueBatch.Event event) {
			return (this.events & (8 << event.ordinal())) != 0;
		}

	}

	/** What a settling call (ack, retry, dead-letter, release, cancel) did to the message. */
	enum Settled {

		/** The token was stale (or, for cancel, there was nothing to cancel). */
		STALE,

		/** Done as asked. */
		DONE,

		/** A replay: the token (or request id) was settled before. */
		REPLAYED,

		/** A retry that dead-lettered the message: it had all its deliveries. */
		DEAD_LETTERED,

		/**
		 * Cancelled while in flight: settling dead-lettered it as {@value DeadLetter#CANCELLED}, whatever was asked;
		 * for cancel, the message was marked so.
		 */
		CANCELLED;

		static Settled of(long reply, LuaScript script) {
			return switch ((int) reply) {
				case 0 -> STALE;
				case 1 -> DONE;
				case 2 -> REPLAYED;
				case 3 -> DEAD_LETTERED;
				case 4 -> CANCELLED;
				default -> throw new IllegalStateException("Unexpected reply " + reply + " from " + script);
			};
		}

	}

}

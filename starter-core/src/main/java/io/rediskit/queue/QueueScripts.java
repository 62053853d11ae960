package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * records for {@link #SETTLED_RETENTION}, and a cancel carries a request id recorded the same way.
 */
final class QueueScripts {

	static final LuaScript ENQUEUE = script("enqueue");

	static final LuaScript PROMOTE = script("promote");

	static final LuaScript CLAIM = script("claim");

	static final LuaScript ACK = script("ack");

	static final LuaScript ACK_MANY = script("ack_many");

	static final LuaScript RETRY = script("retry");

	static final LuaScript DEAD_LETTER = script("dead_letter");

	static final LuaScript EXTEND = script("extend");

	static final LuaScript RELEASE = script("release");

	static final LuaScript REQUEUE = script("requeue");

	static final LuaScript CANCEL = script("cancel");

	static final LuaScript STATS = script("stats");

	static final LuaScript DEAD_LETTERS = script("dead_letters");

	static final LuaScript REDRIVE = script("redrive");

	static final LuaScript PURGE = script("purge");

	/** How long a settled token or cancel request id is kept so that a driver replay is recognised. */
	static final Duration SETTLED_RETENTION = Duration.ofMinutes(10);

	/** Most messages one promote or requeue call moves, so that no script runs long whatever the backlog. */
	static final int MOVE_BATCH = 500;

	/** Most messages one claim takes. */
	static final int MAX_CLAIM = 1000;

	private static final byte[] SERVER_TIME = new byte[0];

	private static final byte[] SETTLED_MILLIS = number(SETTLED_RETENTION.toMillis());

	private static final byte[] MOVE_BATCH_BYTES = number(MOVE_BATCH);

	private final ScriptExecutor executor;

	QueueScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/**
	 * Enqueues messages; one round trip however many.
	 * @return the server time and, per message, whether it was added ({@code false}: its id was held already)
	 */
	CompletionStage<Enqueued> enqueue(Keys keys, List<Outgoing> messages, @Nullable Long now) {
		byte[][] keysAndArgs = keysAnd(keys, 2 + messages.size() * 4);
		int i = Keys.COUNT;
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = keys.channelBytes;
		for (Outgoing message : messages) {
			keysAndArgs[i++] = utf8(message.id());
			keysAndArgs[i++] = message.payload();
			keysAndArgs[i++] = number(message.delayMillis());
			keysAndArgs[i++] = number(message.dueAtMillis());
		}
		return this.executor.<List<Object>>executeAsync(ENQUEUE, ReturnType.MULTI, Keys.COUNT, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ENQUEUE);
				boolean[] added = new boolean[messages.size()];
				for (int m = 0; m < added.length; m++) {
					added[m] = (Long) values.get(m + 1) == 1L;
				}
				return new Enqueued((Long) values.get(0), added);
			});
	}

	/** Moves up to {@link #MOVE_BATCH} due messages to ready. */
	CompletionStage<Promoted> promote(Keys keys, @Nullable Long now) {
		return this.executor.<List<Object>>executeAsync(PROMOTE, ReturnType.MULTI, Keys.COUNT,
				keysAnd(keys, time(now), MOVE_BATCH_BYTES))
			.thenApply((reply) -> {
				List<Object> values = required(reply, PROMOTE);
				return new Promoted((Long) values.get(0), (Long) values.get(1), (Long) values.get(2),
						(Long) values.get(3));
			});
	}

	/** Claims up to {@code max} ready messages under fresh tokens; a replay of the request returns the same. */
	CompletionStage<Claimed> claim(Keys keys, String requestId, int max, long visibilityMillis, @Nullable Long now) {
		byte[][] keysAndArgs = new byte[Keys.COUNT + 5][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, Keys.COUNT);
		keysAndArgs[Keys.COUNT] = keys.claimRecord(requestId);
		keysAndArgs[Keys.COUNT + 1] = time(now);
		keysAndArgs[Keys.COUNT + 2] = utf8(requestId);
		keysAndArgs[Keys.COUNT + 3] = number(max);
		keysAndArgs[Keys.COUNT + 4] = number(visibilityMillis);
		return this.executor.<List<Object>>executeAsync(CLAIM, ReturnType.MULTI, Keys.COUNT + 1, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, CLAIM);
				List<ClaimedMessage> messages = new ArrayList<>((values.size() - 1) / 5);
				for (int i = 1; i + 4 < values.size(); i += 5) {
					messages.add(new ClaimedMessage(text(values.get(i)), (byte[]) values.get(i + 1),
							(int) (long) (Long) values.get(i + 2), (Long) values.get(i + 3), text(values.get(i + 4))));
				}
				return new Claimed((Long) values.get(0), messages);
			});
	}

	/** @return {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE} */
	CompletionStage<Settled> ack(Keys keys, String id, String token, @Nullable Long now) {
		return settled(ACK, keysAnd(keys, time(now), utf8(id), utf8(token), SETTLED_MILLIS));
	}

	/**
	 * Acknowledges several deliveries in one call, each as {@link #ack} would.
	 * @param deliveries pairs of id and token
	 * @return per pair {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE}
	 */
	CompletionStage<Settled[]> ackAll(Keys keys, List<String[]> deliveries, @Nullable Long now) {
		byte[][] keysAndArgs = keysAnd(keys, 2 + deliveries.size() * 2);
		int i = Keys.COUNT;
		keysAndArgs[i++] = time(now);
		keysAndArgs[i++] = SETTLED_MILLIS;
		for (String[] delivery : deliveries) {
			keysAndArgs[i++] = utf8(delivery[0]);
			keysAndArgs[i++] = utf8(delivery[1]);
		}
		return this.executor.<List<Object>>executeAsync(ACK_MANY, ReturnType.MULTI, Keys.COUNT, keysAndArgs)
			.thenApply((reply) -> {
				List<Object> values = required(reply, ACK_MANY);
				Settled[] settled = new Settled[values.size()];
				for (int m = 0; m < settled.length; m++) {
					settled[m] = Settled.of((Long) values.get(m), ACK_MANY);
				}
				return settled;
			});
	}

	/**
	 * Fails a delivery: delayed for another, or dead-lettered once it had {@code maxDeliveries}.
	 * @return {@link Settled#DONE} (delayed), {@link Settled#DEAD_LETTERED}, {@link Settled#REPLAYED} or
	 * {@link Settled#STALE}
	 */
	CompletionStage<Settled> retry(Keys keys, String id, String token, long delayMillis, QueueSpec spec, String reason,
			@Nullable Long now) {
		return settled(RETRY, keysAnd(keys, time(now), utf8(id), utf8(token), number(delayMillis),
				number(spec.maxDeliveries()), utf8(reason), SETTLED_MILLIS,
				number(spec.deadLetterRetention().toMillis()), number(spec.deadLetterMaxSize()), keys.channelBytes));
	}

	/** @return {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE} */
	CompletionStage<Settled> deadLetter(Keys keys, String id, String token, String reason, QueueSpec spec,
			@Nullable Long now) {
		return settled(DEAD_LETTER, keysAnd(keys, time(now), utf8(id), utf8(token), utf8(reason), SETTLED_MILLIS,
				number(spec.deadLetterRetention().toMillis()), number(spec.deadLetterMaxSize())));
	}

	/** Gives a delivery back at once, uncounted. */
	CompletionStage<Settled> release(Keys keys, String id, String token, @Nullable Long now) {
		return settled(RELEASE, keysAnd(keys, time(now), utf8(id), utf8(token), SETTLED_MILLIS, keys.channelBytes));
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
	 * @return requeued, dead-lettered (delivery limit) and cancelled counts
	 */
	CompletionStage<long[]> requeueExpired(Keys keys, QueueSpec spec, @Nullable Long now) {
		return this.executor.<List<Object>>executeAsync(REQUEUE, ReturnType.MULTI, Keys.COUNT,
				keysAnd(keys, time(now), MOVE_BATCH_BYTES, number(spec.maxDeliveries()),
						number(spec.deadLetterRetention().toMillis()), number(spec.deadLetterMaxSize()),
						keys.channelBytes))
			.thenApply((reply) -> {
				List<Object> values = required(reply, REQUEUE);
				return new long[] { (Long) values.get(0), (Long) values.get(1), (Long) values.get(2) };
			});
	}

	/**
	 * @return {@link Settled#DONE} (removed before delivery), {@link Settled#CANCELLED} (in flight: marked, and
	 * its id published on the cancel channel), {@link Settled#REPLAYED} or {@link Settled#STALE} (nothing)
	 */
	CompletionStage<Settled> cancel(Keys keys, String id, String requestId, @Nullable Long now) {
		return settled(CANCEL, keysAnd(keys, time(now), utf8(id), utf8(requestId), SETTLED_MILLIS,
				keys.cancelChannelBytes));
	}

	CompletionStage<QueueStats> stats(Keys keys, @Nullable Long now) {
		return this.executor.<List<Object>>executeAsync(STATS, ReturnType.MULTI, Keys.COUNT, keysAnd(keys, time(now)))
			.thenApply((reply) -> {
				List<Object> values = required(reply, STATS);
				long serverNow = (Long) values.get(0);
				long oldest = (Long) values.get(5);
				return new QueueStats((Long) values.get(1), (Long) values.get(2), (Long) values.get(3),
						(Long) values.get(4),
						(oldest < 0) ? Duration.ZERO : Duration.ofMillis(Math.max(0, serverNow - oldest)));
			});
	}

	CompletionStage<List<DeadLetter>> deadLetters(Keys keys, int max) {
		return this.executor.<List<Object>>executeAsync(DEAD_LETTERS, ReturnType.MULTI, Keys.COUNT,
				keysAnd(keys, number(max)))
			.thenApply((reply) -> {
				List<Object> values = required(reply, DEAD_LETTERS);
				List<DeadLetter> letters = new ArrayList<>(values.size() / 5);
				for (int i = 0; i + 4 < values.size(); i += 5) {
					letters.add(new DeadLetter(text(values.get(i)),
							text(PayloadCodec.payloadOf((byte[]) values.get(i + 1))), text(values.get(i + 2)),
							java.time.Instant.ofEpochMilli((Long) values.get(i + 3)),
							(int) (long) (Long) values.get(i + 4)));
				}
				return letters;
			});
	}

	/** @return how many dead letters went back to ready */
	CompletionStage<Long> redrive(Keys keys, int max, @Nullable Long now) {
		return integer(REDRIVE, keysAnd(keys, time(now), number(max), keys.channelBytes));
	}

	/** @return how many messages there were */
	CompletionStage<Long> purge(Keys keys) {
		return integer(PURGE, keysAnd(keys));
	}

	private CompletionStage<Settled> settled(LuaScript script, byte[][] keysAndArgs) {
		return integer(script, keysAndArgs).thenApply((reply) -> Settled.of(reply, script));
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
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/" + name + ".lua");
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

	/** The eight keys of one queue and its wake-up channel, all in the queue name's hash slot. */
	static final class Keys {

		static final int COUNT = 8;

		/** delayed, ready, in-flight, dead, meta, payloads, reasons, settled: the order every script takes. */
		final byte[][] all;

		final String channel;

		final byte[] channelBytes;

		/** Where cancel.lua publishes the id of a message cancelled in flight. */
		final String cancelChannel;

		final byte[] cancelChannelBytes;

		private final String claimPrefix;

		private Keys(String[] names, String channel, String claimPrefix) {
			this.all = new byte[COUNT][];
			for (int i = 0; i < COUNT; i++) {
				this.all[i] = utf8(names[i]);
			}
			this.channel = channel;
			this.channelBytes = utf8(channel);
			// The wake-up channel's sibling, ':cancel' for ':wake'.
			this.cancelChannel = channel.substring(0, channel.length() - "wake".length()) + "cancel";
			this.cancelChannelBytes = utf8(this.cancelChannel);
			this.claimPrefix = claimPrefix;
		}

		static Keys of(KeyNaming naming, String queue) {
			String[] names = { naming.key("queue", queue, "delayed"), naming.key("queue", queue, "ready"),
					naming.key("queue", queue, "in-flight"), naming.key("queue", queue, "dead"),
					naming.key("queue", queue, "meta"), naming.key("queue", queue, "payloads"),
					naming.key("queue", queue, "reasons"), naming.key("queue", queue, "settled") };
			return new Keys(names, naming.key("queue", queue, "wake"), naming.key("queue", queue, "claim:"));
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
	 */
	record Outgoing(String id, byte[] payload, long delayMillis, long dueAtMillis) {
	}

	/**
	 * The reply of an enqueue.
	 * @param serverMillis the server's time
	 * @param added per message, whether it was added
	 */
	record Enqueued(long serverMillis, boolean[] added) {
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
	 */
	record Claimed(long serverMillis, List<ClaimedMessage> messages) {
	}

	/**
	 * One claimed message as stored.
	 * @param id its id
	 * @param payload its encoded payload
	 * @param deliveries deliveries so far, this one included
	 * @param dueMillis when it became due
	 * @param token this delivery's token
	 */
	record ClaimedMessage(String id, byte[] payload, int deliveries, long dueMillis, String token) {
	}

	/** What a settling call (ack, retry, dead-letter, release, cancel) did. */
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

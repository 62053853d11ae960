package io.rediskit.queue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The one Redis call of a recurring job: {@code recurring.lua}, which enqueues the job's due slots into its queue
 * (the queue's eight keys, see {@link QueueScripts}) and keeps the job's last slot beside them, in the queue's hash
 * slot, with the name of the instance that took it in a key of its own ({@code <record>:taken-by}): the record
 * keeps the format every version reads, and a version that does not know the second key leaves it alone. A driver replay finds the slots already taken and changes nothing.
 */
final class RecurringScripts {

	static final LuaScript SCHEDULE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/recurring.lua");

	static final LuaScript PAUSE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/queue/recurring_pause.lua");

	private static final byte[] SERVER_TIME = new byte[0];

	private static final byte[] PASS_OVER = new byte[0];

	private static final byte[] PAUSED_SUFFIX = ":paused".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] TAKEN_BY_SUFFIX = ":taken-by".getBytes(StandardCharsets.US_ASCII);

	private final ScriptExecutor executor;

	RecurringScripts(ScriptExecutor executor) {
		this.executor = executor;
	}

	/**
	 * Offers slots, ascending; each is enqueued (or passed over) only if due and later than the job's last slot.
	 * @param stateKey the job's record of its last slot
	 * @param recordMillis how long that record is kept after this call
	 */
	CompletionStage<Scheduled> schedule(QueueScripts.Keys keys, byte[] stateKey, List<Slot> slots, long recordMillis,
			byte[] channel, @Nullable Long now) {
		return schedule(keys, stateKey, slots, recordMillis, channel, now, "");
	}

	/**
	 * Offers slots, ascending; each is enqueued (or passed over) only if due and later than the job's last slot.
	 * @param stateKey the job's record of its last slot
	 * @param recordMillis how long that record is kept after this call
	 * @param instance this instance's name, kept beside the record as the taker of the last slot when this call
	 * moves it ({@code ""}: unknown)
	 */
	CompletionStage<Scheduled> schedule(QueueScripts.Keys keys, byte[] stateKey, List<Slot> slots, long recordMillis,
			byte[] channel, @Nullable Long now, String instance) {
		int keyCount = QueueScripts.Keys.COUNT + 3;
		byte[][] keysAndArgs = new byte[keyCount + 4 + slots.size() * 3][];
		System.arraycopy(keys.all, 0, keysAndArgs, 0, QueueScripts.Keys.COUNT);
		keysAndArgs[QueueScripts.Keys.COUNT] = stateKey;
		keysAndArgs[QueueScripts.Keys.COUNT + 1] = pausedKey(stateKey);
		keysAndArgs[QueueScripts.Keys.COUNT + 2] = suffixed(stateKey, TAKEN_BY_SUFFIX);
		int i = keyCount;
		keysAndArgs[i++] = (now != null) ? number(now) : SERVER_TIME;
		keysAndArgs[i++] = channel;
		keysAndArgs[i++] = number(recordMillis);
		keysAndArgs[i++] = QueueScripts.utf8(instance);
		for (Slot slot : slots) {
			keysAndArgs[i++] = number(slot.millis());
			keysAndArgs[i++] = QueueScripts.utf8(slot.id());
			keysAndArgs[i++] = (slot.payload() != null) ? slot.payload() : PASS_OVER;
		}
		return this.executor.<List<Object>>executeAsync(SCHEDULE, ReturnType.MULTI, keyCount, keysAndArgs)
			.thenApply((reply) -> {
				if (reply == null) {
					throw new IllegalStateException("No reply from " + SCHEDULE);
				}
				int[] outcomes = new int[slots.size()];
				for (int s = 0; s < outcomes.length; s++) {
					outcomes[s] = (int) (long) (Long) reply.get(s + 2);
				}
				long last = (Long) reply.get(1);
				return new Scheduled((Long) reply.get(0), last, outcomes,
						takenBy(last, (reply.size() > slots.size() + 2) ? reply.get(slots.size() + 2) : null));
			});
	}

	/**
	 * Pauses a job, resumes it or reads whether it is paused: {@code recurring_pause.lua}, one round trip.
	 * @param stateKey the job's record of its last slot, whose pause flag is meant
	 * @param mode {@code pause}, {@code resume} or {@code read}
	 * @param keepMillis for {@code pause}, how long the flag is kept
	 * @return whether the job is paused afterwards
	 */
	CompletionStage<Boolean> pause(byte[] stateKey, String mode, long keepMillis) {
		return this.executor.<Long>executeAsync(PAUSE, ReturnType.INTEGER, 1, pausedKey(stateKey),
				mode.getBytes(StandardCharsets.US_ASCII), number(keepMillis))
			.thenApply((reply) -> reply != null && reply == 1L);
	}

	/**
	 * @param stateKey a job's record of its last slot
	 * @return its pause flag, in the same hash slot: while it exists the job's due slots are passed over
	 */
	static byte[] pausedKey(byte[] stateKey) {
		return suffixed(stateKey, PAUSED_SUFFIX);
	}

	private static byte[] suffixed(byte[] stateKey, byte[] suffix) {
		byte[] key = Arrays.copyOf(stateKey, stateKey.length + suffix.length);
		System.arraycopy(suffix, 0, key, stateKey.length, suffix.length);
		return key;
	}

	/**
	 * Reads the record of who took the last slot ({@code <slot ms>|<instance>}): the instance only if the record is
	 * of the last slot; an older version that took it wrote no record, and a record of an earlier slot is not its.
	 */
	static @Nullable String takenBy(long lastSlot, @Nullable Object record) {
		String text = (record instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
				: (record != null) ? record.toString() : "";
		int bar = text.indexOf('|');
		if (bar < 0 || lastSlot < 0 || !text.substring(0, bar).equals(Long.toString(lastSlot))) {
			return null;
		}
		String instance = text.substring(bar + 1);
		return instance.isEmpty() ? null : instance;
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * A slot offered to the script.
	 * @param millis the slot's time
	 * @param id its message id
	 * @param payload its payload, or {@code null} to pass it over (it becomes the last slot, nothing is enqueued)
	 */
	record Slot(long millis, String id, byte @Nullable [] payload) {
	}

	/**
	 * The script's reply.
	 * @param serverMillis the server's time
	 * @param lastSlot the job's last slot afterwards, -1 for none
	 * @param outcomes per slot offered: {@link #ENQUEUED}, {@link #PASSED_OVER}, {@link #TAKEN} or
	 * {@link #NOT_DUE}
	 * @param lastSlotTakenBy the name of the instance that took the last slot, {@code null} if unknown (none yet, or
	 * taken by a version that did not record it)
	 */
	record Scheduled(long serverMillis, long lastSlot, int[] outcomes, @Nullable String lastSlotTakenBy) {

		static final int ENQUEUED = 1;

		static final int PASSED_OVER = 2;

		static final int TAKEN = 0;

		static final int NOT_DUE = -1;

	}

}

package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.Stages;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * What every filter shares about completeness. Each key that holds a filter (a shard, a growing filter's record, a
 * native filter) has a mark beside it in its hash slot, {@code <key>:complete}, which every script that creates the
 * key anew deletes in the same step: a filter lost and recreated by an add is never taken for complete, and an
 * eviction of the filter without its mark cannot leave a mark that lies (a check asks for both: a shard's header is
 * read with its bits; a growing filter's check asks for every layer its record counts, and an add that finds one
 * missing deletes the mark). A seeding writes a
 * random token to the mark as it begins (creating the filter if absent), adds every item, and ends with
 * {@code seed_end.lua}, which marks the filter complete only if the token is still there and the filter exists.
 */
final class BloomSeeding {

	static final LuaScript END = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/seed_end.lua");

	static final LuaScript IS_COMPLETE = LuaScript.fromClasspath("META-INF/redis-kit/scripts/bloom/is_complete.lua");

	/** The token of a call that begins no seeding. */
	static final byte[] NO_TOKEN = new byte[0];

	/** Items per {@code addAll} of a seeding: each is sent pipelined in calls of its own size. */
	static final int ITEMS_PER_BATCH = 10_000;

	static final String MARK = "complete";

	private BloomSeeding() {
	}

	/** @return a token no other seeding has */
	static byte[] token() {
		return ("seeding:" + UUID.randomUUID()).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Adds every item, in batches.
	 * @param filter the filter
	 * @param ids the items
	 * @return how many items were added
	 */
	static long addAll(BloomFilter filter, Iterable<String> ids) {
		Objects.requireNonNull(ids, "ids must not be null");
		List<String> batch = new ArrayList<>(ITEMS_PER_BATCH);
		long added = 0;
		for (String id : ids) {
			batch.add(Objects.requireNonNull(id, "an id of the seed is null"));
			if (batch.size() == ITEMS_PER_BATCH) {
				filter.addAll(batch);
				added += batch.size();
				batch.clear();
			}
		}
		if (!batch.isEmpty()) {
			filter.addAll(batch);
			added += batch.size();
		}
		return added;
	}

	/**
	 * Ends a seeding on every key of a filter.
	 * @return whether every key was marked complete
	 */
	static CompletionStage<Boolean> end(ScriptExecutor scripts, byte[][] keys, byte[][] marks, byte[] token) {
		return all(scripts, END, keys, marks, token);
	}

	/** @return whether every key of a filter exists and is marked complete */
	static CompletionStage<Boolean> isComplete(ScriptExecutor scripts, byte[][] keys, byte[][] marks) {
		return all(scripts, IS_COMPLETE, keys, marks, null);
	}

	/** @return whether a seeding is complete: {@code seed} waits for its steps in turn */
	static boolean seed(BloomFilter filter, Iterable<String> ids, Seedable steps) {
		byte[] token = token();
		Stages.join(steps.begin(token));
		addAll(filter, ids);
		return Stages.join(steps.end(token));
	}

	// Keys of several shards live in different slots: one call per key and its mark, all in flight at once.
	private static CompletionStage<Boolean> all(ScriptExecutor scripts, LuaScript script, byte[][] keys, byte[][] marks,
			byte @Nullable [] token) {
		List<CompletableFuture<Long>> replies = new ArrayList<>(keys.length);
		for (int i = 0; i < keys.length; i++) {
			byte[][] keysAndArgs = (token != null) ? new byte[][] { keys[i], marks[i], token }
					: new byte[][] { keys[i], marks[i] };
			replies.add(scripts.<Long>executeAsync(script, ReturnType.INTEGER, 2, keysAndArgs).toCompletableFuture());
		}
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
			.thenApply((done) -> replies.stream().allMatch((reply) -> Long.valueOf(1).equals(reply.join())));
	}

	/** The steps of a seeding a filter takes on its own keys. */
	interface Seedable {

		/** Creates the filter if absent, then writes the token to every mark. */
		CompletionStage<?> begin(byte[] token);

		/** Marks every key complete if its mark still holds the token. */
		CompletionStage<Boolean> end(byte[] token);

	}

}

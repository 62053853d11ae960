package io.rediskit.latch;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.LuaScript;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Every Redis call of the count-down latch: the scripts {@code set_count.lua} and {@code count_down.lua} (under
 * {@code META-INF/redis-kit/scripts/latch/}), and the plain read of the count. Keys of one latch, one hash slot:
 * {@code <prefix>latch:{<name>}} (the count), {@code ...:applied} (ids of the count-downs applied since the count
 * was set, so that a replayed count-down counts once) and the channel {@code ...:opened}.
 */
final class LatchScripts {

	static final LuaScript SET_COUNT = script("set_count");

	static final LuaScript COUNT_DOWN = script("count_down");

	private static final byte[] COUNT_FIELD = utf8("c");

	private final ScriptExecutor scripts;

	private final CommandExecutor commands;

	private final byte[] abandonedAfterMillis;

	private final byte[] openForMillis;

	LatchScripts(ScriptExecutor scripts, CommandExecutor commands, LatchSpec spec) {
		this.scripts = scripts;
		this.commands = commands;
		this.abandonedAfterMillis = number(spec.abandonedAfter().toMillis());
		this.openForMillis = number(spec.openFor().toMillis());
	}

	/** @return whether the count was set */
	CompletionStage<Boolean> setCount(Keys keys, long count) {
		return this.scripts.<Long>executeAsync(SET_COUNT, ReturnType.INTEGER, 2, keys.latch, keys.applied,
				number(count), this.abandonedAfterMillis)
			.thenApply((reply) -> reply != null && reply == 1L);
	}

	/** @return the count after it, or {@code -1} when no latch is set */
	CompletionStage<Long> countDown(Keys keys, String requestId) {
		return this.scripts.<Long>executeAsync(COUNT_DOWN, ReturnType.INTEGER, 2, keys.latch, keys.applied,
				utf8(requestId), this.abandonedAfterMillis, this.openForMillis, utf8(keys.opened))
			.thenApply((reply) -> {
				if (reply == null) {
					throw new IllegalStateException("Redis returned no reply to " + COUNT_DOWN);
				}
				return reply;
			});
	}

	/** @return the count, or {@code -1} when no latch is set */
	CompletionStage<Long> count(Keys keys) {
		return this.commands.<byte @Nullable []>executeAsync("HGET", ReturnType.VALUE, keys.latch, COUNT_FIELD)
			.thenApply((value) -> (value != null) ? Long.parseLong(new String(value, StandardCharsets.US_ASCII)) : -1L);
	}

	/** The keys and the channel of one latch. */
	static final class Keys {

		final String name;

		final String opened;

		final byte[] latch;

		final byte[] applied;

		Keys(KeyNaming naming, String name) {
			this.name = name;
			this.opened = naming.key("latch", name, "opened");
			this.latch = utf8(naming.key("latch", name));
			this.applied = utf8(naming.key("latch", name, "applied"));
		}

	}

	private static LuaScript script(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/latch/" + name + ".lua");
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}

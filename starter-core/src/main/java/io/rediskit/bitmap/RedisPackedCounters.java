package io.rediskit.bitmap;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.Stages;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link PackedCounters} of a {@link BitmapRegistry}.
 */
final class RedisPackedCounters extends BitmapEntry<PackedCounterSpec> implements PackedCounters {

	private static final String AREA = "bitmap";

	RedisPackedCounters(String name, PackedCounterSpec spec, CommandExecutor commands, KeyNaming keyNaming,
			ObservedCalls calls) {
		super(name, spec, commands, keyNaming, calls);
	}

	@Override
	public OptionalLong incrementBy(String key, long index, long delta) {
		return Stages.join(incrementByAsync(key, index, delta));
	}

	@Override
	public CompletionStage<OptionalLong> incrementByAsync(String key, long index, long delta) {
		byte[] redisKey = key(key);
		byte[][] args = BitmapScripts.incrementBy(this.spec, checkIndex(index), delta);
		return this.calls.observed("increment", () -> this.commands
			.<List<Object>>executeAsync(BitmapScripts.FIELD, ReturnType.MULTI, redisKey, args)
			.thenApply(BitmapScripts::readIncrement));
	}

	@Override
	public long get(String key, long index) {
		return Stages.join(getAsync(key, index));
	}

	@Override
	public CompletionStage<Long> getAsync(String key, long index) {
		byte[] redisKey = key(key);
		byte[][] args = BitmapScripts.get(this.spec, checkIndex(index));
		return this.calls.observed("get", () -> this.commands
			.<List<Object>>executeAsync(BitmapScripts.READ_FIELD, ReturnType.MULTI, redisKey, args)
			.thenApply(BitmapScripts::readValue));
	}

	@Override
	public long set(String key, long index, long value) {
		return Stages.join(setAsync(key, index, value));
	}

	@Override
	public CompletionStage<Long> setAsync(String key, long index, long value) {
		if (value < this.spec.min() || value > this.spec.max()) {
			throw new IllegalArgumentException("value must be from " + this.spec.min() + " to " + this.spec.max()
					+ " for " + this.spec.type() + " counters, was " + value);
		}
		byte[] redisKey = key(key);
		byte[][] args = BitmapScripts.set(this.spec, checkIndex(index), value);
		return this.calls.observed("set", () -> this.commands
			.<List<Object>>executeAsync(BitmapScripts.FIELD, ReturnType.MULTI, redisKey, args)
			.thenApply(BitmapScripts::readValue));
	}

	/** Refuses before Redis what would grow the string past the bound: Redis would allocate it. */
	private long checkIndex(long index) {
		if (index < 0 || index >= this.spec.capacity()) {
			throw new IllegalArgumentException("index must be from 0 to " + (this.spec.capacity() - 1) + " ("
					+ this.spec.maxBits() + " bits of " + this.spec.type() + " counters; raise maxBits for more), was "
					+ index);
		}
		return index;
	}

	private byte[] key(String key) {
		Objects.requireNonNull(key, "key must not be null");
		return this.keyNaming.key(AREA, this.name + ":" + key, "packed").getBytes(StandardCharsets.UTF_8);
	}

}

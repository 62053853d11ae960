package io.rediskit.id;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ObservedCalls;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@link IdGenerator} of an {@link IdGeneratorRegistry}: one counter key, {@code <prefix>id:{<name>}}, and the
 * current block of this handle. At most one reservation is in flight per handle; callers that find the block used
 * up queue (asynchronously) and are served in order from the blocks that arrive.
 */
final class RedisIdGenerator implements IdGenerator {

	private static final Log logger = LogFactory.getLog(RedisIdGenerator.class);

	private static final String RESERVE = "INCRBY";

	private final String name;

	private final IdGeneratorSpec spec;

	private final byte[] key;

	private final byte[] blockSize;

	private final CommandExecutor commands;

	private final ObservedCalls calls;

	private final Object lock = new Object();

	/** The next id to hand out; with {@link #last}, the current block. */
	private long next = 1;

	/** The last id of the current block; below {@link #next} when the block is used up (at first: no block). */
	private long last = 0;

	/** Callers waiting for a block, served in order as blocks arrive. */
	private final Deque<CompletableFuture<Long>> waiters = new ArrayDeque<>();

	/** Whether a reservation is in flight. */
	private boolean reserving;

	RedisIdGenerator(String name, IdGeneratorSpec spec, CommandExecutor commands, KeyNaming keyNaming,
			Supplier<Observations> observations) {
		this.name = name;
		this.spec = spec;
		this.key = keyNaming.key("id", name).getBytes(StandardCharsets.UTF_8);
		this.blockSize = Integer.toString(spec.blockSize()).getBytes(StandardCharsets.US_ASCII);
		this.commands = commands;
		this.calls = new ObservedCalls("Id generator", RedisKitObservation.ID_OPERATION, name, observations, logger);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public IdGeneratorSpec spec() {
		return this.spec;
	}

	@Override
	public long next() {
		return Stages.join(nextAsync());
	}

	@Override
	public long reserved() {
		return Stages.join(reservedAsync());
	}

	@Override
	public CompletionStage<Long> reservedAsync() {
		return this.commands.<byte[]>executeAsync("GET", ReturnType.VALUE, this.key)
			.thenApply((value) -> (value != null) ? Long.parseLong(new String(value, StandardCharsets.US_ASCII)) : 0L);
	}

	@Override
	public CompletionStage<Long> nextAsync() {
		CompletableFuture<Long> waiter = new CompletableFuture<>();
		synchronized (this.lock) {
			if (this.next <= this.last && this.waiters.isEmpty()) {
				return CompletableFuture.completedFuture(this.next++);
			}
			this.waiters.add(waiter);
			if (this.reserving) {
				return waiter;
			}
			this.reserving = true;
		}
		// Outside the lock: on a factory without the shared connection the reply comes on this thread.
		reserve();
		return waiter;
	}

	/**
	 * Reserves a block and hands its ids to the waiters in order, reserving again while some are left: a waiter
	 * is completed once, so many waiters on small blocks cost one round trip per block, not a retry each.
	 */
	private void reserve() {
		CompletionStage<@Nullable Long> call;
		try {
			call = this.calls.observed("block",
					() -> this.commands.executeAsync(RESERVE, ReturnType.INTEGER, this.key, this.blockSize));
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		call.whenComplete((lastOfBlock, failure) -> {
			if (failure == null && lastOfBlock != null) {
				served(lastOfBlock);
			}
			else {
				failed((failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
						: (failure != null) ? failure
								: new IllegalStateException("INCRBY of " + this.name + " gave no reply"));
			}
		});
	}

	private void served(long lastOfBlock) {
		List<CompletableFuture<Long>> served = new ArrayList<>();
		List<Long> ids = new ArrayList<>();
		boolean again;
		synchronized (this.lock) {
			this.next = lastOfBlock - this.spec.blockSize() + 1;
			this.last = lastOfBlock;
			while (this.next <= this.last && !this.waiters.isEmpty()) {
				served.add(this.waiters.poll());
				ids.add(this.next++);
			}
			again = !this.waiters.isEmpty();
			this.reserving = again;
		}
		// Completed outside the lock: a waiter's continuation may call nextAsync again.
		for (int i = 0; i < served.size(); i++) {
			served.get(i).complete(ids.get(i));
		}
		if (again) {
			reserve();
		}
	}

	private void failed(Throwable cause) {
		List<CompletableFuture<Long>> failed;
		synchronized (this.lock) {
			failed = new ArrayList<>(this.waiters);
			this.waiters.clear();
			this.reserving = false;
		}
		failed.forEach((waiter) -> waiter.completeExceptionally(cause));
	}

}

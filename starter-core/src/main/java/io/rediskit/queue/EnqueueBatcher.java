package io.rediskit.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.rediskit.queue.QueueScripts.Enqueued;
import io.rediskit.queue.QueueScripts.Outgoing;
import org.jspecify.annotations.Nullable;

/**
 * Sends single-message enqueues of one queue as batches, without waiting for anything: when no enqueue script of
 * the queue is in flight a message goes at once, alone; messages that arrive while one is in flight wait for it
 * and then go together, in arrival order, as one script call (one round trip, one server clock read, one
 * notification). Under concurrent producers this takes most of the per-message cost of the round trip and the
 * script off the enqueue path; a lone producer sees no added latency. Each caller still learns what became of its
 * own message, and a failed call fails every message it carried, as separate calls would have.
 */
final class EnqueueBatcher {

	/** Most messages one combined call carries. */
	static final int MAX_MESSAGES = 500;

	/** Payload bytes after which a combined call takes no more messages (it takes at least one). */
	static final long MAX_BYTES = 1024 * 1024;

	private final Function<List<Outgoing>, CompletionStage<Enqueued>> send;

	private final ArrayDeque<Pending> waiting = new ArrayDeque<>();

	private boolean inFlight;

	/** @param send sends one batch as one enqueue script call */
	EnqueueBatcher(Function<List<Outgoing>, CompletionStage<Enqueued>> send) {
		this.send = send;
	}

	/**
	 * @param message the message, its payload encoded and checked
	 * @return what the enqueue did
	 */
	CompletionStage<EnqueueResult> enqueue(Outgoing message) {
		Pending pending = new Pending(message, new CompletableFuture<>());
		synchronized (this) {
			if (this.inFlight) {
				this.waiting.add(pending);
				return pending.result;
			}
			this.inFlight = true;
		}
		send(List.of(pending));
		return pending.result;
	}

	private void send(List<Pending> batch) {
		List<Outgoing> messages = new ArrayList<>(batch.size());
		for (Pending pending : batch) {
			messages.add(pending.message);
		}
		CompletionStage<Enqueued> call;
		try {
			call = this.send.apply(messages);
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		call.whenComplete((enqueued, failure) -> {
			List<Pending> next = next();
			if (next != null) {
				send(next);
			}
			for (int i = 0; i < batch.size(); i++) {
				CompletableFuture<EnqueueResult> result = batch.get(i).result;
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					result.complete(enqueued.results()[i]);
				}
			}
		});
	}

	// The messages that waited, up to the bounds; null (and nothing in flight) when none did.
	private synchronized @Nullable List<Pending> next() {
		if (this.waiting.isEmpty()) {
			this.inFlight = false;
			return null;
		}
		List<Pending> next = new ArrayList<>(Math.min(this.waiting.size(), MAX_MESSAGES));
		long bytes = 0;
		while (!this.waiting.isEmpty() && next.size() < MAX_MESSAGES && (next.isEmpty() || bytes < MAX_BYTES)) {
			Pending pending = this.waiting.poll();
			bytes += pending.message.payload().length;
			next.add(pending);
		}
		return next;
	}

	private record Pending(Outgoing message, CompletableFuture<EnqueueResult> result) {
	}

}

package io.rediskit.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.queue.QueueScripts.Settlement;
import org.jspecify.annotations.Nullable;

/**
 * Sends the acks of one queue as batches, the way {@link EnqueueBatcher} sends enqueues: when no ack script of
 * the queue is in flight an ack goes at once, with every ack waiting; acks that arrive while one is in flight wait
 * for it and then go together as one script call. A handler that finishes while another's ack is on the wire thus
 * costs no round trip of its own, and a lone ack sees no added latency.
 * <p>
 * An ack may also be <b>held</b> ({@link #hold}): it waits without being sent, to go with the next ack sent, with
 * the next reply's batch, or at a {@link #flush}. A listener container holds the ack of a finished delivery while
 * others it took are still to finish, for at most its ack linger, so that a claim of quick handlers is acked in one
 * call (see {@link QueueDispatcher}); whoever holds an ack must flush it within its bound.
 * <p>
 * At-least-once is unchanged: an ack is only ever sent for a delivery whose handler has finished, each ack in a
 * batch is checked against its own token as a single ack is, and a call that fails fails every ack it carried
 * (their messages come back after the visibility timeout, as after any lost ack). A held ack lost in a crash is
 * the same: its message comes back after the visibility timeout.
 */
final class AckBatcher {

	/** Most acks one combined call carries. */
	static final int MAX_ACKS = 500;

	private final Function<List<String[]>, CompletionStage<Settlement[]>> send;

	private final ArrayDeque<Pending> waiting = new ArrayDeque<>();

	private boolean inFlight;

	/** @param send sends id and token (and a result, if any) of each ack as one ack script call */
	AckBatcher(Function<List<String[]>, CompletionStage<Settlement[]>> send) {
		this.send = send;
	}

	/** @return what the ack did: {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE} */
	CompletionStage<Settlement> ack(String id, String token) {
		return ack(id, token, null);
	}

	/**
	 * Sends the ack, with every ack waiting, unless an ack call is in flight: then it goes with the others after
	 * that call's reply.
	 * @param result the handler's result as JSON, for a flow's parent, or {@code null}
	 * @return what the ack did: {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE}
	 */
	CompletionStage<Settlement> ack(String id, String token, @Nullable String result) {
		return add(id, token, result, false);
	}

	/**
	 * Holds the ack: it waits, unsent, for the next ack sent, the next reply or a {@link #flush}, whichever first.
	 * @param result the handler's result as JSON, for a flow's parent, or {@code null}
	 * @return what the ack did: {@link Settled#DONE}, {@link Settled#REPLAYED} or {@link Settled#STALE}
	 */
	CompletionStage<Settlement> hold(String id, String token, @Nullable String result) {
		return add(id, token, result, true);
	}

	/** Sends the acks held or waiting, unless an ack call is in flight: its reply sends them. */
	void flush() {
		List<Pending> batch;
		synchronized (this) {
			if (this.inFlight || this.waiting.isEmpty()) {
				return;
			}
			this.inFlight = true;
			batch = take();
		}
		send(batch);
	}

	/** @return acks held or waiting, not sent yet */
	synchronized int waiting() {
		return this.waiting.size();
	}

	private CompletionStage<Settlement> add(String id, String token, @Nullable String result, boolean held) {
		String[] delivery = (result != null) ? new String[] { id, token, result } : new String[] { id, token };
		Pending pending = new Pending(delivery, new CompletableFuture<>());
		List<Pending> batch;
		synchronized (this) {
			this.waiting.add(pending);
			if (held || this.inFlight) {
				return pending.settled;
			}
			this.inFlight = true;
			batch = take();
		}
		send(batch);
		return pending.settled;
	}

	private void send(List<Pending> batch) {
		List<String[]> pairs = new ArrayList<>(batch.size());
		for (Pending pending : batch) {
			pairs.add(pending.pair);
		}
		CompletionStage<Settlement[]> call;
		try {
			call = this.send.apply(pairs);
		}
		catch (RuntimeException ex) {
			call = CompletableFuture.failedFuture(ex);
		}
		call.whenComplete((settled, failure) -> {
			List<Pending> next = next();
			if (next != null) {
				send(next);
			}
			// A claim the acks' room asks for goes after the last of them (see ReplyTail).
			ReplyTail.run(() -> {
				for (int i = 0; i < batch.size(); i++) {
					CompletableFuture<Settlement> one = batch.get(i).settled;
					if (failure != null) {
						one.completeExceptionally(failure);
					}
					else {
						one.complete(settled[i]);
					}
				}
			});
		});
	}

	// The acks that waited, up to the bound; null (and nothing in flight) when none did.
	private synchronized @Nullable List<Pending> next() {
		if (this.waiting.isEmpty()) {
			this.inFlight = false;
			return null;
		}
		return take();
	}

	// Under this monitor: the first waiting acks, up to the bound, as one call.
	private List<Pending> take() {
		List<Pending> next = new ArrayList<>(Math.min(this.waiting.size(), MAX_ACKS));
		while (!this.waiting.isEmpty() && next.size() < MAX_ACKS) {
			next.add(this.waiting.poll());
		}
		return next;
	}

	private record Pending(String[] pair, CompletableFuture<Settlement> settled) {
	}

}

package io.rediskit.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

import io.rediskit.support.RedisFailures;
import io.rediskit.support.ThrottledLog;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * The independent Redis servers of one {@link RedlockRegistry}, each with its own {@link LockScripts}: every
 * operation is sent to all of them at once, each reply waited for at most the node timeout, and the replies are
 * counted. A node that does not answer in time counts as failed for this round; its request is not cancelled
 * (it may still apply), which is why a failed acquisition releases on every node. Requests to one node share
 * one connection, so a later release reaches a paused node after the acquisition it undoes.
 * <p>
 * <b>Bounds.</b> A round completes within {@link #roundTimeout()} (two node timeouts plus {@link #ROUND_GRACE})
 * whatever its calls do: a node still silent then, because its connection is still being opened or its reply
 * was lost, counts as failed for the round. A synchronous caller waits for its stage at most {@link #callTimeout()} and then fails
 * with a {@code QueryTimeoutException} ({@link #await}), so that no completion lost anywhere can block a thread.
 */
final class RedlockNodes {

	/**
	 * Added to a round's bound: a node whose connection is being opened (the starter's default connect timeout)
	 * is waited for that long before it counts as failed for the round.
	 */
	static final Duration ROUND_GRACE = Duration.ofSeconds(2);

	/** Added to the bound of a synchronous wait, for scheduling delays on a loaded machine. */
	static final Duration SYNC_MARGIN = Duration.ofSeconds(1);

	private final List<Node> nodes;

	private final Duration nodeTimeout;

	private final ThrottledLog outages;

	private volatile @Nullable Executor executor;

	RedlockNodes(List<Node> nodes, Duration nodeTimeout, ThrottledLog outages) {
		this.nodes = List.copyOf(nodes);
		this.nodeTimeout = nodeTimeout;
		this.outages = outages;
	}

	int size() {
		return this.nodes.size();
	}

	/** @return the longest a round takes: two node timeouts plus {@link #ROUND_GRACE} */
	Duration roundTimeout() {
		return this.nodeTimeout.multipliedBy(2).plus(ROUND_GRACE);
	}

	/**
	 * @return the longest a synchronous caller waits for one attempt (an acquisition round, then a fence round)
	 * or one release: two round timeouts plus {@link #SYNC_MARGIN}
	 */
	Duration callTimeout() {
		return roundTimeout().multipliedBy(2).plus(SYNC_MARGIN);
	}

	/**
	 * Waits for a stage on the calling thread, at most {@link #callTimeout()}; an interrupt does not end the wait
	 * (the stages are bounded) and is restored afterwards.
	 * @param what the operation, as the exception names it
	 * @return the stage's value
	 * @throws QueryTimeoutException if the stage did not complete in time: a completion was lost, never a slow
	 * node (rounds end on their own within {@link #roundTimeout()})
	 */
	<T> T await(CompletionStage<T> stage, String what) {
		CompletableFuture<T> future = stage.toCompletableFuture();
		Duration bound = callTimeout();
		long deadline = System.nanoTime() + bound.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (TimeoutException ex) {
					throw new QueryTimeoutException("Redlock " + what + " did not complete within " + bound
							+ " (its rounds are bounded by " + roundTimeout() + "): a lost completion, please report it");
				}
				catch (ExecutionException ex) {
					Throwable cause = ex.getCause();
					if (cause instanceof RuntimeException runtime) {
						throw runtime;
					}
					if (cause instanceof Error error) {
						throw error;
					}
					throw new CompletionException(cause);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** @return how many nodes make a majority: {@code N/2 + 1} */
	int quorum() {
		return this.nodes.size() / 2 + 1;
	}

	/**
	 * @return the replies to the acquisition, in the order they came, once the outcome is decided: a majority
	 * took the lock, or so many nodes refused or failed that no majority is possible, or every node answered
	 * (each within the node timeout). A node still silent then is left out; its request may still apply.
	 */
	CompletionStage<List<Reply<LockScripts.Attempt>>> acquire(LockScripts.Keys keys, String owner, long leaseMillis,
			String requestId) {
		int quorum = quorum();
		return onEach(this.nodes, (node) -> node.scripts().acquireAsync(keys, owner, leaseMillis, requestId),
				(replies) -> {
					long acquired = count(replies, LockScripts.Attempt::acquired);
					// Nodes that failed their last call are not waited for when only they could still make a majority:
					// with exactly a majority up, rounds that split the live nodes would otherwise each cost a node
					// timeout while holding some of them.
					long hopeful = this.nodes.stream()
						.filter((node) -> !node.suspect && replies.stream().noneMatch((reply) -> reply.node() == node))
						.count();
					return acquired >= quorum || acquired + hopeful < quorum;
				});
	}

	/**
	 * @param replies the replies of a decided round
	 * @return how many nodes that failed their last call are among those the round did not wait for: they count
	 * as failed, so that a majority of nodes known to be down fails the attempt at once instead of every round
	 * ending undecided until the wait time runs out
	 */
	int silentSuspects(List<? extends Reply<?>> replies) {
		return (int) this.nodes.stream()
			.filter((node) -> node.suspect && replies.stream().noneMatch((reply) -> reply.node() == node))
			.count();
	}

	/** @return how many nodes of {@code on} stored the token, once a majority did or all answered */
	CompletionStage<Integer> raiseFence(LockScripts.Keys keys, String owner, long token, List<Node> on) {
		Predicate<Long> stored = (reply) -> reply >= token;
		return onEach(on, (node) -> node.scripts().raiseFence(keys, owner, token), (replies) -> count(replies, stored) >= quorum())
			.thenApply((replies) -> (int) count(replies, stored));
	}

	/**
	 * Releases on every node, whether or not it answered the acquisition.
	 * @return the counts once a majority released or all answered
	 */
	CompletionStage<Tally> release(LockScripts.Keys keys, String owner) {
		Predicate<Long> released = (reply) -> reply == 0L;
		return onEach(this.nodes, (node) -> node.scripts().releaseLast(keys, owner),
				(replies) -> count(replies, released) >= quorum())
			.thenApply((replies) -> tally(replies, released));
	}

	/**
	 * Extends the lease on every node where the owner still holds the lock.
	 * @return the counts once a majority renewed or all answered
	 */
	CompletionStage<Tally> renew(LockScripts.Keys keys, String owner, long leaseMillis) {
		Predicate<Boolean> renewed = Boolean::booleanValue;
		return onEach(this.nodes, (node) -> node.scripts().renew(keys, owner, leaseMillis),
				(replies) -> count(replies, renewed) >= quorum())
			.thenApply((replies) -> tally(replies, renewed));
	}

	/**
	 * Asks every node whether the lock's key exists.
	 * @return whether a majority has it, once a majority answered alike or all answered; exceptionally when too
	 * few nodes answered to tell
	 */
	CompletionStage<Boolean> isLocked(LockScripts.Keys keys) {
		int quorum = quorum();
		return onEach(this.nodes, (node) -> node.scripts().isLockedAsync(keys),
				(replies) -> count(replies, Boolean::booleanValue) >= quorum
						|| count(replies, (locked) -> !locked) >= quorum)
			.thenApply((replies) -> {
				Tally tally = tally(replies, Boolean::booleanValue);
				if (tally.done() >= quorum) {
					return true;
				}
				if (tally.refused() >= quorum) {
					return false;
				}
				throw unavailable("isLocked", tally, replies);
			});
	}

	/**
	 * Asks every node who holds the lock.
	 * @return the owner and token a majority of nodes store (the fence round records the token the acquisition
	 * chose on each node of its majority); empty when no holder is on a majority; exceptionally when too few nodes
	 * answered to tell
	 */
	CompletionStage<Optional<Engine.Holder>> holder(LockScripts.Keys keys) {
		int quorum = quorum();
		return onEach(this.nodes, (node) -> node.scripts().holderAsync(keys),
				(replies) -> majority(replies, quorum) != null)
			.thenApply((replies) -> {
				Optional<Engine.Holder> agreed = majority(replies, quorum);
				if (agreed != null) {
					return agreed;
				}
				long answered = replies.stream().filter((reply) -> reply.failure() == null).count();
				if (answered >= quorum) {
					// Enough nodes answered, and no owner is on a majority of them: nobody holds the Redlock.
					return Optional.empty();
				}
				Tally tally = tally(replies, (holder) -> true);
				throw unavailable("holder", tally, replies);
			});
	}

	/** @return the answer a majority gave alike (a holder, or nobody), or {@code null} when none has one yet */
	private @Nullable Optional<Engine.Holder> majority(List<Reply<Optional<Engine.Holder>>> replies, int quorum) {
		Map<Optional<Engine.Holder>, Integer> answers = new HashMap<>();
		for (Reply<Optional<Engine.Holder>> reply : replies) {
			Optional<Engine.Holder> value = reply.value();
			if (value != null && answers.merge(value, 1, Integer::sum) >= quorum) {
				return value;
			}
		}
		return null;
	}

	/** Releases on every node and forgets the outcome: the leases end the keys should a release not arrive. */
	void releaseQuietly(LockScripts.Keys keys, String owner) {
		release(keys, owner);
	}

	private static <T> long count(List<Reply<T>> replies, Predicate<T> succeeded) {
		return replies.stream().filter((reply) -> reply.value() != null && succeeded.test(reply.value())).count();
	}

	/**
	 * Sends one call to each node at once.
	 * @param decided whether the replies so far settle the outcome, so that silent nodes need not be waited for
	 * @return the replies in the order they came, when decided or when every node answered or timed out, and at
	 * the latest after {@link #roundTimeout()} with the replies that came by then
	 */
	private <T> CompletionStage<List<Reply<T>>> onEach(List<Node> targets, Function<Node, CompletionStage<T>> call,
			Predicate<List<Reply<T>>> decided) {
		CompletableFuture<List<Reply<T>>> result = new CompletableFuture<>();
		List<Reply<T>> replies = new ArrayList<>(targets.size());
		for (Node node : targets) {
			bounded(node, call).thenAccept((reply) -> {
				List<Reply<T>> sofar;
				synchronized (replies) {
					replies.add(reply);
					sofar = List.copyOf(replies);
				}
				if (!result.isDone() && (sofar.size() == targets.size() || decided.test(sofar))) {
					result.complete(sofar);
				}
			});
		}
		// Each call is bounded on its own; this bounds the round even if one of their completions is lost.
		return result.orTimeout(roundTimeout().toNanos(), TimeUnit.NANOSECONDS).exceptionally((timeout) -> {
			synchronized (replies) {
				return List.copyOf(replies);
			}
		});
	}

	/**
	 * Gives the executor calls to nodes that did not answer their last call are sent from; {@code null} sends
	 * them from the calling thread. The lines of calls waiting to be sent start afresh: a call the previous executor
	 * accepted and never ran holds up no node after a restart.
	 */
	void setExecutor(@Nullable Executor executor) {
		this.executor = executor;
		for (Node node : this.nodes) {
			synchronized (node) {
				node.dispatched = CompletableFuture.completedFuture(null);
			}
		}
	}

	/**
	 * One node's call, never failing: a failure or a missed node timeout becomes a failed reply. A node that never
	 * answered or failed its last call may have no connection, and opening one blocks (up to the connect
	 * timeout): its call is sent from the executor, never from the driver's or the timer's thread this may run
	 * on.
	 */
	private <T> CompletableFuture<Reply<T>> bounded(Node node, Function<Node, CompletionStage<T>> call) {
		CompletableFuture<T> future;
		Executor offThread = this.executor;
		synchronized (node) {
			if (offThread == null || (node.connected && !node.suspect && node.dispatched.isDone())) {
				future = send(node, call);
			}
			else {
				// Chained per node, so that a release sent this way reaches the node after the acquisition it undoes.
				CompletableFuture<T> reply = new CompletableFuture<>();
				CompletableFuture<@Nullable Void> dispatched = new CompletableFuture<>();
				node.dispatched.whenComplete((previous, failure) -> dispatch(node, call, offThread, reply, dispatched));
				node.dispatched = dispatched;
				future = reply;
			}
		}
		return future.handle((value, failure) -> {
			node.suspect = failure != null;
			node.connected |= failure == null;
			if (failure == null) {
				return new Reply<T>(node, value, null);
			}
			RuntimeException cause = translate(node, failure);
			if (RedisFailures.isUnavailable(cause)) {
				this.outages.warn(cause);
			}
			return new Reply<T>(node, null, cause);
		});
	}

	/**
	 * Sends one call from the executor, then lets the next call chained on the node go. Every path that returns
	 * completes both futures: an executor that refuses the task (shut down by a stop, or saturated) fails this call
	 * and lets the next one go. An executor that accepts a task and never runs it (a discarding policy) leaves the
	 * node silent; the round deadline still ends every round, so callers see a failed node, not a hang.
	 */
	private <T> void dispatch(Node node, Function<Node, CompletionStage<T>> call, Executor offThread,
			CompletableFuture<T> reply, CompletableFuture<@Nullable Void> dispatched) {
		try {
			offThread.execute(() -> {
				try {
					send(node, call).whenComplete((value, failure) -> {
						if (failure != null) {
							reply.completeExceptionally(failure);
						}
						else {
							reply.complete(value);
						}
					});
				}
				finally {
					dispatched.complete(null);
				}
			});
		}
		catch (RuntimeException refused) {
			reply.completeExceptionally(refused);
			dispatched.complete(null);
		}
	}

	/**
	 * Sends one call, and times its reply from then on: opening a connection, which happens first, is bounded by
	 * the connect timeout instead.
	 */
	private <T> CompletableFuture<T> send(Node node, Function<Node, CompletionStage<T>> call) {
		try {
			return call.apply(node).toCompletableFuture().copy().orTimeout(this.nodeTimeout.toNanos(),
					TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private RuntimeException translate(Node node, Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (cause instanceof TimeoutException) {
			return new QueryTimeoutException(
					"Redlock " + node.name() + " did not answer within the node timeout of " + this.nodeTimeout);
		}
		return (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
	}

	private <T> Tally tally(List<Reply<T>> replies, Predicate<T> succeeded) {
		int done = 0;
		int refused = 0;
		RuntimeException failure = null;
		for (Reply<T> reply : replies) {
			if (reply.failure() != null) {
				failure = (failure != null) ? failure : reply.failure();
			}
			else if (reply.value() != null && succeeded.test(reply.value())) {
				done++;
			}
			else {
				refused++;
			}
		}
		// Nodes still silent when the outcome was decided count as failed.
		return new Tally(done, refused, size() - done - refused, failure);
	}

	/**
	 * An exception for a round in which too few nodes answered to reach a majority.
	 * @param what the operation, as messages say it
	 * @param tally the round's counts
	 * @return a {@code RedisConnectionFailureException}, which {@link RedisFailures#isUnavailable} recognises
	 */
	RuntimeException unavailable(String what, Tally tally) {
		return unavailable(what, tally, List.of());
	}

	/**
	 * @param replies the replies that came, to name the nodes that failed or stayed silent
	 */
	<T> RuntimeException unavailable(String what, Tally tally, List<Reply<T>> replies) {
		List<String> silentNodes = new ArrayList<>();
		for (Node node : this.nodes) {
			Reply<T> reply = replies.stream().filter((candidate) -> candidate.node() == node).findFirst().orElse(null);
			if (reply == null) {
				silentNodes.add(node.name() + " no answer yet");
			}
			else if (reply.failure() != null) {
				silentNodes.add(node.name() + " " + reply.failure().getClass().getSimpleName());
			}
		}
		String silent = String.join(", ", silentNodes);
		return new RedisConnectionFailureException("Redlock " + what + ": " + tally.failed() + " of " + size()
				+ " nodes failed or did not answer within " + this.nodeTimeout + " (a majority needs " + quorum()
				+ " answers)" + (replies.isEmpty() ? "" : ": " + silent), tally.failure());
	}

	/** One independent Redis server. */
	static final class Node {

		private final String name;

		private final LockScripts scripts;

		/** Whether the node ever answered: its connection was opened. */
		volatile boolean connected;

		/** Whether the node's last call failed or timed out: it may be down, its connection may need opening. */
		volatile boolean suspect;

		/** Completes when the calls handed to the executor for this node were sent. */
		CompletableFuture<@Nullable Void> dispatched = CompletableFuture.completedFuture(null);

		/**
		 * @param name how messages name it, such as {@code node 2 (127.0.0.1:6381)}
		 * @param scripts the lock's scripts on that server
		 */
		Node(String name, LockScripts scripts) {
			this.name = name;
			this.scripts = scripts;
		}

		String name() {
			return this.name;
		}

		LockScripts scripts() {
			return this.scripts;
		}

	}

	/**
	 * One node's reply in a round.
	 * @param node the node
	 * @param value its reply, {@code null} when it failed
	 * @param failure why it failed (down, too slow: a {@code QueryTimeoutException}, an error)
	 */
	record Reply<T>(Node node, @Nullable T value, @Nullable RuntimeException failure) {
	}

	/**
	 * The counts of a round.
	 * @param done nodes where the operation succeeded
	 * @param refused nodes that answered that the owner does not hold the lock there
	 * @param failed nodes that did not answer in time or failed
	 * @param failure the first failure, if any
	 */
	record Tally(int done, int refused, int failed, @Nullable RuntimeException failure) {
	}

}

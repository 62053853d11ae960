package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A delay queue on Redis with at-least-once delivery, from {@link QueueRegistry#get(String, Class)}.
 * <p>
 * <b>States.</b> Every message is in exactly one of: <em>delayed</em> (not due), <em>ready</em> (due),
 * <em>in flight</em> (delivered, with a visibility deadline and a token) or <em>dead</em> (in the
 * dead-letter queue). Each operation is one Lua script, so no message is ever seen in two states or none.
 * Acknowledged and cancelled messages leave no data behind.
 * <p>
 * <b>At-least-once.</b> A claim moves due messages to in flight; a consumer that dies or stalls past the
 * visibility timeout loses them to the next claim. Its late settling calls are then refused
 * ({@link StaleDeliveryException}), like a lock's fencing. A message may so be processed twice; never lost.
 * <p>
 * <b>Time.</b> Due times and deadlines are on the server's clock ({@code TIME}); {@link #enqueueAt} takes an
 * absolute time and compares it with that clock.
 * <p>
 * <b>Order.</b> Messages are claimed in due order; equal due times (to the millisecond) in id order, which for
 * generated ids of one producer is enqueue order. With more than one consumer, or concurrency above one,
 * processing overlaps and may finish out of order; a retried message is due again after its backoff.
 * <p>
 * <b>Payloads</b> are JSON through the registry's Jackson {@code JsonMapper}, at most
 * {@link QueueSpec#maxPayloadSize()} bytes. A payload that cannot be decoded as the queue's type is
 * dead-lettered with the reason at the claim, never handed to a consumer.
 * <p>
 * <b>Flows and batches.</b> {@link #enqueueFlow} enqueues a parent that becomes due once every child succeeded,
 * {@link #enqueueBatch} a set of messages with callbacks Redis enqueues once when the set finished, succeeded or
 * lost a member; their bookkeeping is part of the scripts that settle messages, so it costs no round trip of its own
 * and holds across instances and crashes. Both stay within one queue (one hash slot).
 * <p>
 * <b>Failures.</b> While Redis is unavailable every call fails with Spring's {@code DataAccessException} after
 * the command timeout; nothing half-done is left behind, since each call is one script. A call the driver
 * replays after reconnecting is applied once.
 *
 * @param <T> the payload type
 */
public interface RedisQueue<T> {

	/** @return the queue name */
	String name();

	/** @return the spec in force */
	QueueSpec spec();

	/** @return the payload type */
	Class<T> payloadType();

	/**
	 * Enqueues a message due now.
	 * @param payload the payload
	 * @return the generated message id
	 * @throws PayloadTooLargeException if the JSON is larger than the spec allows
	 */
	String enqueue(T payload);

	/**
	 * Enqueues a message due after a delay.
	 * @param payload the payload
	 * @param delay from the server's now, not negative
	 * @return the generated message id
	 */
	String enqueue(T payload, Duration delay);

	/**
	 * Enqueues a message due at a time.
	 * @param payload the payload
	 * @param due when, compared with the server's clock; a past time means now
	 * @return the generated message id
	 */
	String enqueueAt(T payload, Instant due);

	/**
	 * Enqueues a message with options. With an id the queue holds already, what happens is the entry's
	 * {@link Deduplication} (or the queue's): by default nothing changes and that id is returned. To learn what
	 * happened, use {@link #tryEnqueue(QueueEntry)}.
	 * @param entry the message
	 * @return {@link EnqueueResult#id()} of {@link #tryEnqueue(QueueEntry)}: its id
	 */
	String enqueue(QueueEntry<T> entry);

	/** @param entry the message; @return {@link #enqueue(QueueEntry)} without blocking */
	CompletionStage<String> enqueueAsync(QueueEntry<T> entry);

	/**
	 * Enqueues a message with options under its {@link Deduplication} (the entry's, or the queue's
	 * {@link QueueSpec#deduplication()}), and says what happened: added, dropped as a duplicate, or, debounced,
	 * replacing the waiting message of its id. One script call, atomic across instances, on the server's clock.
	 * @param entry the message
	 * @return what the enqueue did, and the id of the message it concerns
	 */
	EnqueueResult tryEnqueue(QueueEntry<T> entry);

	/** @param entry the message; @return {@link #tryEnqueue(QueueEntry)} without blocking */
	CompletionStage<EnqueueResult> tryEnqueueAsync(QueueEntry<T> entry);

	/**
	 * Enqueues many messages in one round trip and one script: all or none, each under its {@link Deduplication}
	 * in order (a second entry of an id in the same call is a second enqueue of it).
	 * @param entries the messages, at most 10 000
	 * @return their ids, in order, as {@link EnqueueResult#id()} gives them
	 */
	List<String> enqueueAll(List<QueueEntry<T>> entries);

	/** @param entries the messages; @return {@link #enqueueAll(List)} without blocking */
	CompletionStage<List<String>> enqueueAllAsync(List<QueueEntry<T>> entries);

	/**
	 * Enqueues a flow in one script, all or nothing: its children as usual, its parent waiting until every child
	 * succeeded (see {@link QueueFlow} and {@link ChildFailurePolicy}).
	 * @param flow the parent and its children
	 * @return the ids; {@link QueueFlow.FlowIds#enqueued()} {@code false} when the parent id was in the queue already
	 * (nothing added: an idempotent retry)
	 * @throws IllegalArgumentException if a child id is in the queue already (nothing added)
	 */
	QueueFlow.FlowIds enqueueFlow(QueueFlow<T> flow);

	/** @param flow the parent and its children; @return {@link #enqueueFlow(QueueFlow)} without blocking */
	CompletionStage<QueueFlow.FlowIds> enqueueFlowAsync(QueueFlow<T> flow);

	/**
	 * Enqueues a batch in one script, all or nothing: its members, and its callbacks for Redis to enqueue once when
	 * the batch reaches their state (see {@link QueueBatch}).
	 * @param batch the members and callbacks
	 * @return the batch id; when a batch of that id exists nothing is added and the id is returned
	 * @throws IllegalArgumentException if a member id is in the queue already (nothing added)
	 */
	String enqueueBatch(QueueBatch<T> batch);

	/** @param batch the members and callbacks; @return {@link #enqueueBatch(QueueBatch)} without blocking */
	CompletionStage<String> enqueueBatchAsync(QueueBatch<T> batch);

	/**
	 * @param batchId the batch id
	 * @return where the batch stands, or {@code null} if there is no such batch (any more: a finished batch is kept
	 * for a day)
	 */
	@Nullable BatchProgress batchProgress(String batchId);

	/** @param batchId the batch id; @return {@link #batchProgress(String)} without blocking */
	CompletionStage<@Nullable BatchProgress> batchProgressAsync(String batchId);

	/**
	 * Batches whose members have not all finished, with their progress, as an operator's view: one bounded script
	 * that looks at most at {@value #WORKFLOW_SCAN} entries of the queue's flow and batch bookkeeping, so with many
	 * flows and batches under way it may list fewer than {@link QueueStats#batchesInProgress()} counts.
	 * @param max most batches to list, at least 1
	 * @return unfinished batches, in no particular order
	 */
	List<BatchProgress> batchesInProgress(int max);

	/** @param max most batches to list; @return {@link #batchesInProgress(int)} without blocking */
	CompletionStage<List<BatchProgress>> batchesInProgressAsync(int max);

	/**
	 * The groups of a queue with {@link QueueGroups groups} with the most ready messages, as an operator's view: one
	 * bounded script that looks at most at the first {@value QueueGroups#SCAN} groups in turn order and the
	 * {@value #IN_FLIGHT_SCAN} in-flight messages closest to their deadline; a group with messages in flight and none
	 * ready is listed after those with ready ones. Empty for a queue without groups.
	 * @param max most groups to list, at least 1
	 * @return groups by ready messages, most first, then by messages in flight, then by name
	 */
	List<GroupStats> groupStats(int max);

	/** @param max most groups to list; @return {@link #groupStats(int)} without blocking */
	CompletionStage<List<GroupStats>> groupStatsAsync(int max);

	/** Most entries of the flow and batch bookkeeping {@link #batchesInProgress(int)} looks at. */
	int WORKFLOW_SCAN = 10_000;

	/** Most in-flight messages {@link #groupStats(int)} looks at. */
	int IN_FLIGHT_SCAN = 10_000;

	/**
	 * Cancels a message, from any instance. One not delivered yet (delayed or ready) is removed with its data. One
	 * in flight (running, or claimed and waiting in a container) is marked cancelled in Redis and the instances
	 * are told: a container interrupts the handler running it (or does not start it), and whatever settles the
	 * delivery next (the handler's return or exception, {@code ack}, {@code retry}, {@code deadLetter}, a stopping
	 * container, or the visibility timeout) sends it to the dead letters with the reason
	 * {@value DeadLetter#CANCELLED}; it is never acked nor delivered again. An instance that misses the
	 * notification only misses the interrupt: the outcome is the same.
	 * @param id its id
	 * A flow's parent waiting for its children is removed with every child that has not finished (each cancelled as
	 * above); a cancelled child of a flow or member of a batch counts as failed.
	 * @return whether it was cancelled, removed or marked; {@code false} if it is dead or unknown (or acked)
	 */
	boolean cancel(String id);

	/** @param id its id; @return {@link #cancel(String)} without blocking */
	CompletionStage<Boolean> cancelAsync(String id);

	/**
	 * Claims due messages, waiting for some up to {@code wait}: woken when one becomes due (a timer at the
	 * earliest due time, a notification for new ones, and a poll every {@link QueueSpec#pollInterval()} in case
	 * a notification is lost). Messages are not extended automatically: settle them within the visibility
	 * timeout or extend it. Its wait blocks the thread; without a thread, {@link #pollAsync(int)} takes what is
	 * due now, and a {@link QueueListenerContainer} waits for you.
	 * @param max most messages, 1 to 1000
	 * @param wait how long to wait for the first; zero to take only what is due
	 * @return the messages, possibly none
	 * @throws InterruptedException if interrupted while waiting
	 */
	List<QueueMessage<T>> poll(int max, Duration wait) throws InterruptedException;

	/**
	 * Claims what is due now, without blocking.
	 * @param max most messages, 1 to 1000
	 * @return the messages, possibly none
	 */
	CompletionStage<List<QueueMessage<T>>> pollAsync(int max);

	/**
	 * Pauses the queue for every consumer of every instance: from the moment this returns no claim takes a
	 * message (the check is inside the claim script), while messages already claimed finish as usual, prefetched
	 * ones included. The pause is kept in Redis without expiry, so that it outlives restarts, until
	 * {@link #resume()}. Listener containers look again once per poll interval while paused, without spinning.
	 * Enqueueing goes on. Pausing a paused queue changes nothing.
	 */
	void pause();

	/** @return {@link #pause()} without blocking */
	CompletionStage<Void> pauseAsync();

	/**
	 * Resumes a paused queue and wakes its consumers (a lost wake-up costs at most the poll interval). Resuming a
	 * queue that is not paused changes nothing; a listener paused on its own stays paused.
	 */
	void resume();

	/** @return {@link #resume()} without blocking */
	CompletionStage<Void> resumeAsync();

	/** @return whether the queue is paused, as Redis says now */
	boolean isPaused();

	/** @return {@link #isPaused()} without blocking */
	CompletionStage<Boolean> isPausedAsync();

	/** @return counts by state and the oldest due age */
	QueueStats stats();

	/** @return {@link #stats()} without blocking */
	CompletionStage<QueueStats> statsAsync();

	/**
	 * @param max most to list
	 * @return dead letters, oldest first
	 */
	List<DeadLetter> deadLetters(int max);

	/**
	 * {@link #deadLetters(int)} without blocking.
	 * @param max most to list
	 * @return dead letters, oldest first
	 */
	CompletionStage<List<DeadLetter>> deadLettersAsync(int max);

	/**
	 * Moves dead letters back to the queue, oldest first, with their delivery counts reset.
	 * @param max most to move
	 * @return how many moved
	 */
	long redrive(int max);

	/**
	 * {@link #redrive(int)} without blocking.
	 * @param max most to move
	 * @return how many moved
	 */
	CompletionStage<Long> redriveAsync(int max);

	/**
	 * Moves one chosen dead letter back to the queue, due now, with its delivery count reset: one script that checks
	 * and moves, so that with a concurrent {@link #redrive(int)}, purge or second call it moves once or not at all.
	 * @param id the message id, as {@link DeadLetter#id()} lists it
	 * @return whether it moved; {@code false} if it is not a dead letter (any more)
	 */
	boolean redriveDeadLetter(String id);

	/**
	 * {@link #redriveDeadLetter(String)} without blocking.
	 * @param id the message id
	 * @return whether it moved
	 */
	CompletionStage<Boolean> redriveDeadLetterAsync(String id);

	/**
	 * Deletes one chosen dead letter with its payload and reason, in one script with the check that it is dead.
	 * @param id the message id, as {@link DeadLetter#id()} lists it
	 * @return whether it was deleted; {@code false} if it is not a dead letter (any more), which is left alone
	 */
	boolean deleteDeadLetter(String id);

	/**
	 * {@link #deleteDeadLetter(String)} without blocking.
	 * @param id the message id
	 * @return whether it was deleted
	 */
	CompletionStage<Boolean> deleteDeadLetterAsync(String id);

	/**
	 * Removes every message in every state. Consumers holding deliveries get {@link StaleDeliveryException}
	 * when they settle.
	 * @return how many messages there were
	 */
	long purge();

	/** @return {@link #purge()} without blocking */
	CompletionStage<Long> purgeAsync();

}

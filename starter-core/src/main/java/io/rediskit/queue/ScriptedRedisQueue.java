package io.rediskit.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.transport.SenderContext;
import io.rediskit.queue.PayloadCodec.Decoded;
import io.rediskit.queue.PayloadCodec.UndecodablePayloadException;
import io.rediskit.queue.QueueScripts.Admission;
import io.rediskit.queue.QueueScripts.Claimed;
import io.rediskit.queue.QueueScripts.ClaimedMessage;
import io.rediskit.queue.QueueScripts.HeldBack;
import io.rediskit.queue.QueueScripts.Outgoing;
import io.rediskit.queue.QueueScripts.Promoted;
import io.rediskit.queue.QueueScripts.Settled;
import io.rediskit.queue.QueueScripts.Settlement;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.Stages;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/** The {@link RedisQueue} of one name and payload type: its operations as calls of {@link QueueScripts}. */
final class ScriptedRedisQueue<T> implements RedisQueue<T> {

	static final int MAX_BATCH = 10_000;

	/** The source of an enqueue made by a call of the queue: its observation's {@code source} tag. */
	static final String SOURCE_CALLER = "caller";

	/** The source of a recurring job's slots, enqueued by its scheduler ({@link RecurringJob}). */
	static final String SOURCE_RECURRING = "recurring";

	private static final Log logger = LogFactory.getLog(ScriptedRedisQueue.class);

	private final QueueState state;

	private final Class<T> type;

	private final QueueParts parts;

	ScriptedRedisQueue(QueueState state, Class<T> type, QueueParts parts) {
		this.state = state;
		this.type = type;
		this.parts = parts;
	}

	@Override
	public String name() {
		return this.state.name;
	}

	@Override
	public QueueSpec spec() {
		return this.state.spec();
	}

	@Override
	public Class<T> payloadType() {
		return this.type;
	}

	QueueParts parts() {
		return this.parts;
	}

	QueueScripts.Keys keys() {
		return this.state.keys;
	}

	QueueState state() {
		return this.state;
	}

	@Override
	public String enqueue(T payload) {
		return enqueue(QueueEntry.of(payload));
	}

	@Override
	public String enqueue(T payload, Duration delay) {
		return enqueue(QueueEntry.of(payload).withDelay(delay));
	}

	@Override
	public String enqueueAt(T payload, Instant due) {
		return enqueue(QueueEntry.of(payload).withDueAt(due));
	}

	@Override
	public String enqueue(QueueEntry<T> entry) {
		return Stages.join(enqueueAsync(entry));
	}

	@Override
	public CompletionStage<String> enqueueAsync(QueueEntry<T> entry) {
		return tryEnqueueAsync(entry).thenApply(EnqueueResult::id);
	}

	@Override
	public EnqueueResult tryEnqueue(QueueEntry<T> entry) {
		return Stages.join(tryEnqueueAsync(entry));
	}

	@Override
	public CompletionStage<EnqueueResult> tryEnqueueAsync(QueueEntry<T> entry) {
		Objects.requireNonNull(entry, "entry must not be null");
		Observations observations = this.parts.observations;
		if (observations.isNoop()) {
			return enqueue(entry, Observation.NOOP);
		}
		Observation observation = observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, name(), SOURCE_CALLER,
				entry.headers());
		QueueEntry<T> traced;
		try {
			traced = entry.withHeaders(carrier(observation));
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		return enqueue(traced, observation);
	}

	private CompletionStage<EnqueueResult> enqueue(QueueEntry<T> entry, Observation observation) {
		Outgoing message;
		try {
			message = outgoing(entry, spec());
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		// Concurrent single enqueues of a queue share script calls (see EnqueueBatcher); a lone one goes at once.
		// In scope while it is handed over, on this thread only: a call this enqueue sends is its span's child.
		CompletionStage<EnqueueResult> call;
		try (Observation.Scope scope = observation.openScope()) {
			call = this.state.enqueueBatcher(this.parts.scripts).enqueue(message);
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		return call.handle((result, failure) -> {
			if (failure != null) {
				RuntimeException thrown = failed(failure);
				Observations.stop(observation, "error", thrown);
				throw thrown;
			}
			Observations.stop(observation, result.outcome().value());
			report(result.outcome(), 1);
			return result;
		});
	}

	/** @return the headers the sending observation's propagator wrote the trace context into */
	@SuppressWarnings("unchecked")
	static Map<String, String> carrier(Observation observation) {
		Map<String, String> carrier = ((SenderContext<Map<String, String>>) observation.getContext()).getCarrier();
		return (carrier != null) ? carrier : Map.of();
	}

	private void report(EnqueueResult.Outcome outcome, int count) {
		if (outcome == EnqueueResult.Outcome.ENQUEUED) {
			this.parts.listeners.notify((l) -> l.onEnqueued(name(), count));
		}
		else {
			this.parts.listeners.notify((l) -> l.onDeduplicated(name(), outcome, count));
		}
	}

	private Outgoing outgoing(QueueEntry<T> entry, QueueSpec spec) {
		byte[] payload = this.parts.codec.encode(entry.payload());
		if (payload.length > spec.maxPayloadSize()) {
			throw new PayloadTooLargeException(name(), payload.length, spec.maxPayloadSize());
		}
		long dueAt = (entry.dueAt() != null) ? Math.max(0, entry.dueAt().toEpochMilli()) : 0;
		// Headers and a time to live travel in an envelope around the payload; without them it is stored bare.
		long timeToLive = (entry.timeToLive() != null) ? entry.timeToLive().toMillis() : 0;
		QueuePriority priority = (entry.priority() != null) ? entry.priority() : spec.defaultPriority();
		String group = entry.group();
		if (group != null) {
			if (spec.groups() == null) {
				throw new IllegalArgumentException("Queue '" + name() + "' has no groups: a message with group '"
						+ group + "' needs QueueSpec.withGroups (redis-kit.queue.queues." + name() + ".groups.enabled)");
			}
			if (entry.priority() != null && entry.priority() != QueuePriority.NORMAL) {
				throw new IllegalArgumentException("A message of a group has the normal priority, was "
						+ entry.priority());
			}
			priority = QueuePriority.NORMAL;
		}
		else if (spec.groups() != null) {
			// No group in a queue with groups: the script drops what an earlier message of the id left.
			group = "\n";
		}
		byte[] stored = this.parts.codec.wrap(payload, entry.headers(), timeToLive);
		if (entry.id() == null) {
			return new Outgoing(this.parts.newMessageId(), stored, entry.delay().toMillis(), dueAt, priority)
				.inGroup(group);
		}
		Deduplication deduplication = (entry.deduplication() != null) ? entry.deduplication() : spec.deduplication();
		return new Outgoing(entry.id(), stored, entry.delay().toMillis(), dueAt, priority)
			.deduplicated(deduplication, entry.id() + "~" + this.parts.newMessageId())
			.inGroup(group);
	}

	@Override
	public List<String> enqueueAll(List<QueueEntry<T>> entries) {
		return Stages.join(enqueueAllAsync(entries));
	}

	@Override
	public CompletionStage<List<String>> enqueueAllAsync(List<QueueEntry<T>> entries) {
		Objects.requireNonNull(entries, "entries must not be null");
		if (entries.size() > MAX_BATCH) {
			throw new IllegalArgumentException("At most " + MAX_BATCH + " messages per batch, was " + entries.size());
		}
		if (entries.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		QueueSpec spec = spec();
		// One observation for the batch, one round trip: its trace context goes with every message of it.
		Observations observations = this.parts.observations;
		Observation observation = observations.isNoop() ? Observation.NOOP
				: observations.startSend(RedisKitObservation.QUEUE_ENQUEUE, name(), SOURCE_CALLER, Map.of());
		List<Outgoing> outgoing = new ArrayList<>(entries.size());
		try {
			for (QueueEntry<T> entry : entries) {
				Objects.requireNonNull(entry, "entries must not contain null");
				if (!observation.isNoop()) {
					Map<String, String> headers = new LinkedHashMap<>(entry.headers());
					headers.putAll(carrier(observation));
					entry = entry.withHeaders(headers);
				}
				outgoing.add(outgoing(entry, spec));
			}
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		CompletionStage<QueueScripts.Enqueued> call;
		try (Observation.Scope scope = observation.openScope()) {
			call = this.parts.scripts.enqueue(keys(), outgoing, null);
		}
		catch (RuntimeException ex) {
			Observations.stop(observation, "error", ex);
			throw ex;
		}
		return call.handle((enqueued, failure) -> {
			if (failure != null) {
				RuntimeException thrown = failed(failure);
				Observations.stop(observation, "error", thrown);
				throw thrown;
			}
			Observations.stop(observation, "enqueued");
			int[] counts = new int[EnqueueResult.Outcome.values().length];
			List<String> ids = new ArrayList<>(entries.size());
			for (EnqueueResult result : enqueued.results()) {
				counts[result.outcome().ordinal()]++;
				ids.add(result.id());
			}
			for (EnqueueResult.Outcome outcome : EnqueueResult.Outcome.values()) {
				if (counts[outcome.ordinal()] > 0) {
					report(outcome, counts[outcome.ordinal()]);
				}
			}
			return List.copyOf(ids);
		});
	}

	@Override
	public QueueFlow.FlowIds enqueueFlow(QueueFlow<T> flow) {
		return Stages.join(enqueueFlowAsync(flow));
	}

	@Override
	public CompletionStage<QueueFlow.FlowIds> enqueueFlowAsync(QueueFlow<T> flow) {
		Objects.requireNonNull(flow, "flow must not be null");
		QueueSpec spec = spec();
		Outgoing parent = placed(flow.parent(), Map.of(), spec);
		List<Outgoing> children = new ArrayList<>(flow.children().size());
		List<String> childIds = new ArrayList<>(flow.children().size());
		for (QueueEntry<T> child : flow.children()) {
			Outgoing outgoing = placed(child, Map.of(QueueFlow.PARENT_HEADER, parent.id()), spec);
			children.add(outgoing);
			childIds.add(outgoing.id());
		}
		return this.parts.scripts.enqueueFlow(keys(), parent, children, flow.onChildFailure().code(), null)
			.handle((held, failure) -> {
				if (failure != null) {
					throw failed(failure);
				}
				if (held == null) {
					this.parts.listeners.notify((l) -> {
						l.onEnqueued(name(), children.size() + 1);
						l.onFlowEnqueued(name(), children.size());
					});
					return new QueueFlow.FlowIds(parent.id(), childIds, true);
				}
				if (held.equals(parent.id())) {
					return new QueueFlow.FlowIds(parent.id(), List.of(), false);
				}
				throw new IllegalArgumentException("Message " + held + " is in queue '" + name()
						+ "' already: a flow's children must be new; nothing was enqueued");
			});
	}

	@Override
	public String enqueueBatch(QueueBatch<T> batch) {
		return Stages.join(enqueueBatchAsync(batch));
	}

	@Override
	public CompletionStage<String> enqueueBatchAsync(QueueBatch<T> batch) {
		Objects.requireNonNull(batch, "batch must not be null");
		QueueSpec spec = spec();
		String batchId = (batch.id() != null) ? batch.id() : this.parts.newMessageId();
		Map<String, String> membership = Map.of(QueueBatch.BATCH_HEADER, batchId);
		List<Outgoing> members = new ArrayList<>(batch.members().size());
		for (QueueEntry<T> member : batch.members()) {
			members.add(placed(member, membership, spec));
		}
		Outgoing[] callbacks = { callback(batch.onDeath(), batchId, "death", spec),
				callback(batch.onComplete(), batchId, "complete", spec),
				callback(batch.onSuccess(), batchId, "success", spec) };
		return this.parts.scripts.enqueueBatch(keys(), batchId, callbacks, members, null).handle((held, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			if (held == null) {
				this.parts.listeners.notify((l) -> {
					l.onEnqueued(name(), members.size());
					l.onBatchEnqueued(name(), members.size());
				});
			}
			else if (!held.isEmpty()) {
				throw new IllegalArgumentException("Message " + held + " is in queue '" + name()
						+ "' already: a batch's members must be new; nothing was enqueued");
			}
			return batchId;
		});
	}

	private @Nullable Outgoing callback(@Nullable QueueEntry<T> entry, String batchId, String event, QueueSpec spec) {
		if (entry == null) {
			return null;
		}
		Map<String, String> headers = new LinkedHashMap<>(entry.headers());
		headers.put(QueueBatch.BATCH_HEADER, batchId);
		headers.put(QueueBatch.EVENT_HEADER, event);
		return placed(entry, headers, spec);
	}

	/**
	 * A message of a flow or a batch: its own id or a generated one, without deduplication, with the headers the
	 * workflow adds to its own.
	 */
	private Outgoing placed(QueueEntry<T> entry, Map<String, String> added, QueueSpec spec) {
		if (entry.group() != null) {
			// Refused rather than dropped: the settling scripts that cancel a flow's waiting children and place a
			// released parent or a callback would have to find and place it in its group (docs/queue.md, Groups).
			throw new IllegalArgumentException("A message of a flow or a batch takes no group, was '" + entry.group()
					+ "' in queue '" + name() + "'");
		}
		byte[] payload = this.parts.codec.encode(entry.payload());
		if (payload.length > spec.maxPayloadSize()) {
			throw new PayloadTooLargeException(name(), payload.length, spec.maxPayloadSize());
		}
		Map<String, String> headers = entry.headers();
		if (!added.isEmpty()) {
			headers = new LinkedHashMap<>(headers);
			headers.putAll(added);
		}
		long dueAt = (entry.dueAt() != null) ? Math.max(0, entry.dueAt().toEpochMilli()) : 0;
		long timeToLive = (entry.timeToLive() != null) ? entry.timeToLive().toMillis() : 0;
		QueuePriority priority = (entry.priority() != null) ? entry.priority() : spec.defaultPriority();
		String id = (entry.id() != null) ? entry.id() : this.parts.newMessageId();
		return new Outgoing(id, this.parts.codec.wrap(payload, headers, timeToLive), entry.delay().toMillis(), dueAt,
				priority);
	}

	@Override
	public @Nullable BatchProgress batchProgress(String batchId) {
		return Stages.join(batchProgressAsync(batchId));
	}

	@Override
	public CompletionStage<@Nullable BatchProgress> batchProgressAsync(String batchId) {
		Objects.requireNonNull(batchId, "batchId must not be null");
		return this.parts.scripts.batchProgress(keys(), batchId).handle((progress, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return progress;
		});
	}

	@Override
	public List<BatchProgress> batchesInProgress(int max) {
		return Stages.join(batchesInProgressAsync(max));
	}

	@Override
	public CompletionStage<List<BatchProgress>> batchesInProgressAsync(int max) {
		if (max < 1) {
			throw new IllegalArgumentException("max must be at least 1, was " + max);
		}
		return this.parts.scripts.batchesInProgress(keys(), max, WORKFLOW_SCAN).handle((batches, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return batches;
		});
	}

	@Override
	public List<GroupStats> groupStats(int max) {
		return Stages.join(groupStatsAsync(max));
	}

	@Override
	public CompletionStage<List<GroupStats>> groupStatsAsync(int max) {
		if (max < 1) {
			throw new IllegalArgumentException("max must be at least 1, was " + max);
		}
		if (spec().groups() == null) {
			return CompletableFuture.completedFuture(List.of());
		}
		return this.parts.scripts.groupStats(keys(), QueueGroups.SCAN, IN_FLIGHT_SCAN).handle((groups, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return groups.stream()
				.sorted(Comparator.comparingLong(GroupStats::ready)
					.thenComparingLong(GroupStats::inFlight)
					.reversed()
					.thenComparing(GroupStats::group))
				.limit(max)
				.toList();
		});
	}

	/** What the children of a flow's parent did. */
	CompletionStage<FlowChildren> children(String parentId) {
		return this.parts.scripts.flowChildren(keys(), parentId).handle((children, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			List<FlowChildren.Child> all = new ArrayList<>(children.size());
			for (String[] child : children) {
				String outcome = child[1];
				if (outcome.isEmpty()) {
					all.add(new FlowChildren.Child(child[0], FlowChildren.State.PENDING, null, null));
				}
				else if (outcome.charAt(0) == 's') {
					all.add(new FlowChildren.Child(child[0], FlowChildren.State.SUCCEEDED,
							(outcome.length() > 1) ? outcome.substring(1) : null, null));
				}
				else {
					all.add(new FlowChildren.Child(child[0], FlowChildren.State.FAILED, null, outcome.substring(1)));
				}
			}
			return new FlowChildren(all, this.parts.codec);
		});
	}

	@Override
	public boolean cancel(String id) {
		return Stages.join(cancelAsync(id));
	}

	@Override
	public CompletionStage<Boolean> cancelAsync(String id) {
		Objects.requireNonNull(id, "id must not be null");
		return this.parts.scripts.cancel(keys(), id, this.parts.newRequestId(), null).handle((settlement, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			if (settlement.outcome() == Settled.DONE) {
				// Removed before delivery; one cancelled in flight is told by whoever settles it.
				this.parts.listeners.notify((l) -> l.onCancelled(name()));
				reportWorkflow(settlement);
			}
			return settlement.outcome() != Settled.STALE;
		});
	}

	@Override
	public List<QueueMessage<T>> poll(int max, Duration wait) throws InterruptedException {
		checkMax(max);
		Objects.requireNonNull(wait, "wait must not be null");
		long deadline = System.nanoTime() + wait.toNanos();
		boolean watching = false;
		while (true) {
			long seen = this.state.pollWakeup.generation();
			Batch<T> batch = awaitInterruptibly(claimBatch(max));
			long left = deadline - System.nanoTime();
			if (!batch.messages().isEmpty() || left <= 0) {
				return List.copyOf(batch.messages());
			}
			if (!watching) {
				// The channel stays subscribed, one per queue; the wake-up is the queue's, shared by its callers.
				this.parts.signals.watch(keys().channel, this.state.pollSignal);
				watching = true;
			}
			this.state.pollWakeup.await(seen, Math.min(left, batch.sleepNanos(spec())));
		}
	}

	@Override
	public CompletionStage<List<QueueMessage<T>>> pollAsync(int max) {
		checkMax(max);
		return claimBatch(max).thenApply((batch) -> List.copyOf(batch.messages()));
	}

	private static void checkMax(int max) {
		if (max < 1 || max > QueueScripts.MAX_CLAIM) {
			throw new IllegalArgumentException("max must be between 1 and " + QueueScripts.MAX_CLAIM + ", was " + max);
		}
	}

	/**
	 * One consumer round trip: takes back expired deliveries (at most once per poll interval), promotes due
	 * messages and claims; the scripts are sent back to back on one connection, so they run in that order
	 * without waiting for each other's replies.
	 */
	CompletionStage<Batch<T>> claimBatch(int max) {
		return claimBatch(max, null);
	}

	/** {@link #claimBatch(int)} for a listener, whose own pause applies besides the queue's. */
	CompletionStage<Batch<T>> claimBatch(int max, @Nullable String listener) {
		QueueSpec spec = spec();
		if (this.state.requeueDue()) {
			this.parts.scripts.requeueExpired(keys(), spec, null).whenComplete((counts, failure) -> {
				if (failure == null && counts[1] > 0) {
					for (long i = 0; i < counts[1]; i++) {
						this.parts.listeners.notify((l) -> l.onDeadLettered(name(), "visibility timeout expired"));
					}
				}
				if (failure == null && counts[2] > 0) {
					for (long i = 0; i < counts[2]; i++) {
						this.parts.listeners.notify((l) -> {
							l.onCancelled(name());
							l.onDeadLettered(name(), DeadLetter.CANCELLED);
						});
					}
				}
				if (failure == null) {
					reportWorkflow(counts);
				}
			});
		}
		CompletionStage<Promoted> promoted = this.parts.scripts.promote(keys(), spec.groups() != null, null);
		CompletionStage<Claimed> claimed = this.parts.scripts.claim(keys(), this.parts.newRequestId(), max,
				spec.visibilityTimeout().toMillis(), Admission.of(spec, listener), null);
		return promoted.thenCombine(claimed, (promotion, claim) -> toBatch(promotion, claim, spec))
			.handle((batch, failure) -> {
				if (failure != null) {
					throw failed(failure);
				}
				return batch;
			});
	}

	private Batch<T> toBatch(Promoted promotion, Claimed claim, QueueSpec spec) {
		List<Delivery<T>> messages = new ArrayList<>(claim.messages().size());
		for (ClaimedMessage message : claim.messages()) {
			Decoded<T> decoded;
			try {
				decoded = this.parts.codec.decodeMessage(message.payload(), this.type, spec.maxPayloadSize());
			}
			catch (UndecodablePayloadException ex) {
				deadLetterUndecodable(message, ex.getMessage(), spec);
				continue;
			}
			Delivery<T> delivery = new Delivery<>(this, message, decoded, claim.serverMillis());
			if (delivery.isExpired()) {
				delivery.expireAsync();
				continue;
			}
			messages.add(delivery);
			if (!this.parts.listeners.isEmpty()) {
				Duration lateness = Duration.ofMillis(Math.max(0, claim.serverMillis() - message.dueMillis()));
				this.parts.listeners.notify((l) -> l.onDelivered(name(), message.deliveries(), lateness));
			}
		}
		if (claim.heldBack() > 0) {
			String reason = switch (claim.heldBy()) {
				case RATE_LIMIT -> "rate-limit";
				case GROUP_LIMIT -> "group-limit";
				case GROUP_RATE -> "group-rate";
				default -> "max-in-flight";
			};
			this.parts.listeners.notify((l) -> l.onHeldBack(name(), reason, claim.heldBack()));
		}
		return new Batch<>(messages, promotion.nextDueMillis(), claim.serverMillis(),
				promotion.ready() - claim.messages().size(), claim.heldBy(), claim.retryAfterMillis());
	}

	private void deadLetterUndecodable(ClaimedMessage message, String reason, QueueSpec spec) {
		this.parts.scripts.deadLetter(keys(), message.id(), message.token(), reason, spec, null)
			.whenComplete((settled, failure) -> {
				if (failure != null) {
					// It stays in flight and is taken back after the visibility timeout, to be tried again.
					this.parts.outages.warn(failure, "an undecodable message is dead-lettered later");
				}
				else {
					this.parts.listeners.notify((l) -> l.onDeadLettered(name(), reason));
					reportWorkflow(settled);
				}
			});
		logger.warn("Message " + message.id() + " of queue '" + name() + "' dead-lettered: " + reason);
	}

	@Override
	public void pause() {
		Stages.join(pauseAsync());
	}

	@Override
	public CompletionStage<Void> pauseAsync() {
		return pause(QueueScripts.QUEUE_PAUSE);
	}

	@Override
	public void resume() {
		Stages.join(resumeAsync());
	}

	@Override
	public CompletionStage<Void> resumeAsync() {
		return resume(QueueScripts.QUEUE_PAUSE);
	}

	@Override
	public boolean isPaused() {
		return Stages.join(isPausedAsync());
	}

	@Override
	public CompletionStage<Boolean> isPausedAsync() {
		return isPaused(QueueScripts.QUEUE_PAUSE);
	}

	/** Pauses the queue ({@link QueueScripts#QUEUE_PAUSE}) or one listener of it for every consumer. */
	CompletionStage<Void> pause(String field) {
		return this.parts.scripts.pause(keys(), field, null).handle((changed, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			if (changed) {
				logger.info(describe(field) + " paused");
			}
			return null;
		});
	}

	CompletionStage<Void> resume(String field) {
		return this.parts.scripts.resume(keys(), field).handle((changed, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			if (changed) {
				logger.info(describe(field) + " resumed");
			}
			return null;
		});
	}

	CompletionStage<Boolean> isPaused(String field) {
		return this.parts.scripts.paused(keys(), field).handle((since, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return since >= 0;
		});
	}

	/** @return "Queue 'q'" or "Listener 'id' of queue 'q'", for the log of a pause or a resume */
	private String describe(String field) {
		return QueueScripts.QUEUE_PAUSE.equals(field) ? "Queue '" + name() + "'"
				: "Listener '" + field.substring(field.indexOf(':') + 1) + "' of queue '" + name() + "'";
	}

	@Override
	public QueueStats stats() {
		return Stages.join(statsAsync());
	}

	@Override
	public CompletionStage<QueueStats> statsAsync() {
		return this.parts.scripts.stats(keys(), null).handle((stats, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return stats;
		});
	}

	@Override
	public List<DeadLetter> deadLetters(int max) {
		return Stages.join(deadLettersAsync(max));
	}

	@Override
	public CompletionStage<List<DeadLetter>> deadLettersAsync(int max) {
		if (max < 1) {
			throw new IllegalArgumentException("max must be at least 1, was " + max);
		}
		return this.parts.scripts.deadLetters(keys(), max).handle((letters, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return letters;
		});
	}

	@Override
	public long redrive(int max) {
		return Stages.join(redriveAsync(max));
	}

	@Override
	public CompletionStage<Long> redriveAsync(int max) {
		if (max < 1) {
			throw new IllegalArgumentException("max must be at least 1, was " + max);
		}
		return this.parts.scripts.redrive(keys(), max, spec().groups() != null, null).handle((count, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return count;
		});
	}

	@Override
	public boolean redriveDeadLetter(String id) {
		return Stages.join(redriveDeadLetterAsync(id));
	}

	@Override
	public CompletionStage<Boolean> redriveDeadLetterAsync(String id) {
		Objects.requireNonNull(id, "id must not be null");
		return this.parts.scripts.redriveOne(keys(), id, spec().groups() != null, null).handle((moved, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return moved;
		});
	}

	@Override
	public boolean deleteDeadLetter(String id) {
		return Stages.join(deleteDeadLetterAsync(id));
	}

	@Override
	public CompletionStage<Boolean> deleteDeadLetterAsync(String id) {
		Objects.requireNonNull(id, "id must not be null");
		return this.parts.scripts.deleteDeadLetter(keys(), id).handle((deleted, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return deleted;
		});
	}

	@Override
	public long purge() {
		return Stages.join(purgeAsync());
	}

	@Override
	public CompletionStage<Long> purgeAsync() {
		return this.parts.scripts.purge(keys()).handle((count, failure) -> {
			if (failure != null) {
				throw failed(failure);
			}
			return count;
		});
	}

	/** Tells the listeners what a settling did to its message's flow or batch ({@link Settlement#events()}). */
	void reportWorkflow(Settlement settlement) {
		if (settlement.events() == 0) {
			return;
		}
		for (QueueFlow.ParentRelease release : QueueFlow.ParentRelease.values()) {
			if (settlement.has(release)) {
				this.parts.listeners.notify((l) -> l.onFlowParentReleased(name(), release));
			}
		}
		for (QueueBatch.Event event : QueueBatch.Event.values()) {
			if (settlement.has(event)) {
				this.parts.listeners.notify((l) -> l.onBatchEvent(name(), event));
			}
		}
	}

	/** {@link #reportWorkflow(Settlement)} for the counts of each event after a requeue's first three counts. */
	private void reportWorkflow(long[] counts) {
		QueueFlow.ParentRelease[] releases = QueueFlow.ParentRelease.values();
		QueueBatch.Event[] events = QueueBatch.Event.values();
		for (int i = 3; i < counts.length; i++) {
			int bit = i - 3;
			for (long n = 0; n < counts[i]; n++) {
				if (bit < releases.length) {
					QueueFlow.ParentRelease release = releases[bit];
					this.parts.listeners.notify((l) -> l.onFlowParentReleased(name(), release));
				}
				else {
					QueueBatch.Event event = events[bit - releases.length];
					this.parts.listeners.notify((l) -> l.onBatchEvent(name(), event));
				}
			}
		}
	}

	/**
	 * The exception a failed call completes with: an outage is logged (throttled) and told to the listeners;
	 * either way the failure is passed on as it is.
	 */
	CompletionException failed(Throwable failure) {
		Throwable cause = Stages.unwrap(failure);
		if (RedisFailures.isUnavailable(cause) && cause instanceof RuntimeException outage) {
			this.parts.listeners.notify((l) -> l.onFailure(name(), outage));
			this.parts.outages.warn(cause);
		}
		return (failure instanceof CompletionException completion) ? completion : new CompletionException(cause);
	}



	private static <V> V awaitInterruptibly(CompletionStage<V> stage) throws InterruptedException {
		try {
			return stage.toCompletableFuture().get();
		}
		catch (java.util.concurrent.ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new CompletionException(cause);
		}
	}

	/**
	 * What one claim round trip brought.
	 * @param messages the deliveries, decodable ones only
	 * @param nextDueMillis the earliest due time still delayed after the promotion, or -1
	 * @param serverMillis the server's time at the claim
	 * @param readyLeft ready messages left after the claim (as far as the promotion knew)
	 * @param heldBy what held ready messages back, if anything
	 * @param retryAfterMillis when the rate limit held messages back, how long until it admits one; else 0
	 */
	record Batch<T>(List<Delivery<T>> messages, long nextDueMillis, long serverMillis, long readyLeft,
			HeldBack heldBy, long retryAfterMillis) {

		/**
		 * Whether ready messages are left that a claim at once could take: not while paused, nor after a limit held
		 * any back. A limit admits all it can in one claim, so a claim at once would be refused, spin, and count
		 * the same held-back messages a second time.
		 */
		boolean moreReady() {
			return this.readyLeft > 0 && !held();
		}

		private boolean held() {
			return this.heldBy != HeldBack.NOTHING;
		}

		/**
		 * How long a consumer may wait before it must look again: the next due time, or the poll interval; while
		 * paused or held back by the in-flight limit the poll interval (a consumer's own settled delivery makes
		 * room sooner), by the queue's or a group's rate limit until it may admit one.
		 */
		long sleepNanos(QueueSpec spec) {
			long poll = spec.pollInterval().toNanos();
			if (held()) {
				return (this.heldBy == HeldBack.RATE_LIMIT || this.heldBy == HeldBack.GROUP_RATE)
						? Math.min(poll, TimeUnit.MILLISECONDS.toNanos(Math.max(1, this.retryAfterMillis))) : poll;
			}
			if (this.readyLeft > 0) {
				return 0;
			}
			if (this.nextDueMillis < 0) {
				return poll;
			}
			return Math.min(poll, TimeUnit.MILLISECONDS.toNanos(Math.max(0, this.nextDueMillis - this.serverMillis)));
		}

	}

}

package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import io.rediskit.queue.EnqueueResult.Outcome;

/**
 * An independent checker of unique jobs: what producers were told ({@link EnqueueResult} per id given and payload)
 * and what consumers got (message id and payload), checked afterwards without the queue's help. Per id given: as
 * many messages added as the mode allows; every added message delivered exactly once, under the id its enqueue
 * returned, none delivered that no enqueue reported; and each delivered payload the last one its message was given
 * (the added one, or one that replaced it: which of those replaced it last only the server knows, so a test that
 * needs the last asserts it after a replacement of its own).
 */
final class UniqueDeliveryChecker {

	private final Map<String, List<Enqueue>> enqueues = new HashMap<>();

	private final Map<String, List<Delivered>> deliveries = new HashMap<>();

	/**
	 * @param keys how many ids, {@code k0} onwards
	 * @param added how many messages each must have added
	 * @return the expectation {@link #violations} takes
	 */
	static Map<String, Integer> each(int keys, int added) {
		Map<String, Integer> expected = new HashMap<>();
		for (int k = 0; k < keys; k++) {
			expected.put("k" + k, added);
		}
		return expected;
	}

	/** Tells of each delivery (payload: the id given, a number), then acknowledges it. */
	void deliver(List<QueueMessage<QueueTesting.Job>> messages) {
		for (QueueMessage<QueueTesting.Job> message : messages) {
			delivered(message.payload().name(), message.id(), message.payload().number());
			message.ack();
		}
	}

	/**
	 * Consumes until {@code total} deliveries were told (at most 30 s), then looks once more: nothing else may come.
	 * @param queue the queue
	 * @param total deliveries expected in all
	 */
	void drain(RedisQueue<QueueTesting.Job> queue, int total) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (deliveryCount() < total && System.nanoTime() < deadline) {
			deliver(queue.poll(100, Duration.ofMillis(200)));
		}
		deliver(queue.poll(100, Duration.ZERO));
	}

	synchronized void enqueued(String key, int payload, EnqueueResult result) {
		this.enqueues.computeIfAbsent(key, (k) -> new ArrayList<>()).add(new Enqueue(payload, result));
	}

	synchronized void delivered(String key, String messageId, int payload) {
		this.deliveries.computeIfAbsent(key, (k) -> new ArrayList<>()).add(new Delivered(messageId, payload));
	}

	synchronized List<Integer> payloadsDelivered(String key) {
		return this.deliveries.getOrDefault(key, List.of()).stream().map(Delivered::payload).toList();
	}

	synchronized int deliveryCount() {
		return this.deliveries.values().stream().mapToInt(List::size).sum();
	}

	/**
	 * @param added how many messages each id given must have added
	 * @return what is wrong, nothing if all is right
	 */
	synchronized List<String> violations(Map<String, Integer> added) {
		List<String> violations = new ArrayList<>();
		Set<String> keys = new HashSet<>(added.keySet());
		keys.addAll(this.deliveries.keySet());
		keys.addAll(this.enqueues.keySet());
		for (String key : new TreeSet<>(keys)) {
			List<Enqueue> told = this.enqueues.getOrDefault(key, List.of());
			Map<String, Set<Integer>> payloads = new HashMap<>();
			Map<String, Integer> addedPayload = new HashMap<>();
			for (Enqueue enqueue : told) {
				if (enqueue.result.outcome() == Outcome.ENQUEUED) {
					addedPayload.put(enqueue.result.id(), enqueue.payload);
				}
				else if (enqueue.result.outcome() == Outcome.REPLACED) {
					payloads.computeIfAbsent(enqueue.result.id(), (id) -> new HashSet<>()).add(enqueue.payload);
				}
			}
			int expected = added.getOrDefault(key, 0);
			if (addedPayload.size() != expected) {
				violations.add(key + ": " + addedPayload.size() + " added, the mode allows " + expected);
			}
			Set<String> seen = new HashSet<>();
			for (Delivered delivered : this.deliveries.getOrDefault(key, List.of())) {
				if (!seen.add(delivered.messageId)) {
					violations.add(key + ": message " + delivered.messageId + " delivered more than once");
				}
				if (!addedPayload.containsKey(delivered.messageId)) {
					violations.add(key + ": message " + delivered.messageId + " delivered, but no enqueue added it");
					continue;
				}
				Set<Integer> last = payloads.getOrDefault(delivered.messageId,
						Set.of(addedPayload.get(delivered.messageId)));
				if (!last.contains(delivered.payload)) {
					violations.add(key + ": message " + delivered.messageId + " delivered with payload "
							+ delivered.payload + ", not one it was last given " + last);
				}
			}
			for (String id : addedPayload.keySet()) {
				if (!seen.contains(id)) {
					violations.add(key + ": message " + id + " added but never delivered");
				}
			}
		}
		return violations;
	}

	private record Enqueue(int payload, EnqueueResult result) {
	}

	private record Delivered(String messageId, int payload) {
	}

}

package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.rediskit.queue.GroupShareChecker.Handling;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.rediskit.queue.QueueListenerContainerTests.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fair sharing between groups across two "instances" (two registries, each with a container), checked by
 * {@link GroupShareChecker} from what the handlers recorded: one group floods, another enqueues a few after it, and
 * the few are not held back behind the flood; no group ever runs more at once than its limit.
 */
class QueueGroupFairnessTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final int CONCURRENCY = 4;

	final List<QueueRegistry> registries = new ArrayList<>();

	final List<QueueListenerContainer<?>> containers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(QueueListenerContainer::stop);
		this.registries.forEach(QueueRegistry::close);
	}

	@Test
	void aFloodOfOneGroupCannotHoldBackAnothersFewAndNoGroupRunsOverItsLimit() throws Exception {
		QueueSpec spec = QueueTesting.fastSpec()
			.withGroups(QueueGroups.roundRobin().withMaxInFlight(3).withMaxInFlight("small", 2));
		Queue<Handling> handlings = new ConcurrentLinkedQueue<>();
		QueueHandler<Job> handler = (message) -> {
			long start = System.nanoTime();
			String group = message.payload().name();
			handlings.add(new Handling(group, message.id(), start, System.nanoTime()));
		};
		List<QueueRegistry> instances = List.of(registry(), registry());
		RedisQueue<Job> queue = instances.get(0).create("jobs", spec, Job.class);
		List<QueueEntry<Job>> big = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			big.add(QueueEntry.of(new Job("big", i)).withGroup("big"));
			if (big.size() == 500) {
				queue.enqueueAll(big);
				big.clear();
			}
		}
		List<QueueEntry<Job>> small = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			small.add(QueueEntry.of(new Job("small", i)).withGroup("small"));
		}
		queue.enqueueAll(small);
		for (QueueRegistry instance : instances) {
			QueueListenerContainer<Job> container = instance.createContainer(instance.create("jobs", spec, Job.class),
					handler, CONCURRENCY);
			this.containers.add(container);
			container.start();
		}
		awaitTrue(() -> handlings.size() >= 2010, Duration.ofSeconds(60));
		List<Handling> run = List.copyOf(handlings);
		// Round-robin over two groups: one start in every two claims, give or take the claims in the consumers'
		// hands (each instance claims at most its concurrency at once).
		int window = 2 + 2 * CONCURRENCY;
		assertThat(GroupShareChecker.check(run, window, Map.of("big", 3, "small", 2))).isEmpty();
		List<Handling> byStart = new ArrayList<>(run);
		byStart.sort(java.util.Comparator.comparingLong(Handling::startNanos));
		int lastSmall = 0;
		for (int i = 0; i < byStart.size(); i++) {
			if (byStart.get(i).group().equals("small")) {
				lastSmall = i;
			}
		}
		assertThat(lastSmall).as("the small group's last start, counted from the first").isLessThan(2 * 10 + 2 * CONCURRENCY);
		assertThat(run.stream().map(Handling::id).distinct().count()).isEqualTo(2010);
	}

	private QueueRegistry registry() {
		QueueRegistry registry = QueueTesting.registry(redis);
		this.registries.add(registry);
		return registry;
	}

}

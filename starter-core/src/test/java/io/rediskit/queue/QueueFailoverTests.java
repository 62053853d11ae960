package io.rediskit.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.rediskit.queue.DeliveryLogChecker.Log;
import io.rediskit.queue.DeliveryLogChecker.Report;
import io.rediskit.queue.QueueTesting.Job;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTopology;
import io.rediskit.support.Topology;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue under load on a private Redis Cluster whose master of the queue's slot fails over (a coordinated
 * {@code CLUSTER FAILOVER}: the replica takes over once it has every write, so nothing acknowledged is lost).
 * A {@code kill -9} of the master is not tested: replication is asynchronous, and what the master
 * acknowledged in its last moments can be lost (documented in docs/queue.md).
 */
class QueueFailoverTests {

	@Test
	void aClusterFailoverUnderLoadLosesNothing() throws Exception {
		try (RedisTopology cluster = RedisTopology.start(Topology.CLUSTER)) {
			QueueRegistry registry = new QueueRegistry(cluster.scripts(), cluster.connections(), KeyNaming.defaults(),
					JsonMapper.builder().build(), List.of(), (name) -> null);
			RedisQueue<Job> queue = registry.create("failover", QueueTesting.fastSpec()
				.withVisibilityTimeout(Duration.ofSeconds(3)), Job.class);
			Queue<String> log = new ConcurrentLinkedQueue<>();
			QueueListenerContainer<Job> container = registry.createContainer(queue, (message) -> {
				log.add("D " + message.id() + " " + message.deliveryCount());
				log.add("a " + message.id());
				try {
					message.ack();
					log.add("A " + message.id());
				}
				catch (StaleDeliveryException ex) {
					log.add("S " + message.id());
				}
				catch (RuntimeException ex) {
					log.add("F " + message.id());
				}
			}, 4);
			container.start();
			try {
				List<String> ids = new ArrayList<>(
						QueueConcurrencyTests.enqueueWithRandomDelays(queue, 2000, Duration.ofSeconds(3)));
				Thread.sleep(1000);
				RedisServerProcess master = cluster.cluster().masterFor(KeyNaming.defaults().key("queue", "failover"));
				cluster.cluster().failover(master);
				long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
				while (true) {
					try {
						if (queue.stats().total() == 0) {
							break;
						}
					}
					catch (DataAccessException ex) {
						// Still finding the new master.
					}
					assertThat(System.nanoTime()).as("drained after the failover").isLessThan(deadline);
					Thread.sleep(100);
				}
				container.stop();
				Report report = DeliveryLogChecker.check(ids, List.of(new Log(List.copyOf(log), false)));
				assertThat(report.violations()).isEmpty();
			}
			finally {
				container.stop();
				registry.close();
			}
		}
	}

}

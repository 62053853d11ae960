package io.rediskit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.support.ThrottledLog;
import io.rediskit.testsupport.RedisServerExtension;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The round combinator of {@link RedlockNodes} on a real server, with the executor that sends calls to suspect
 * nodes under the test's control: every round completes within its deadline even when a call's completion is
 * lost, a synchronous wait fails with a clear exception at its bound, and a call chained behind one the executor
 * refused is still sent. Before the round deadline and the bounded wait, the second and third tests waited for
 * ever (the JUnit timeout, and the bounded {@code get} here, make such a regression fail instead of hang).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockRoundTests {

	private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);

	/** A stage must complete within this; a lost completion never does. */
	private static final long PATIENCE_SECONDS = 10;

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	LettuceConnectionFactory connections;

	RedlockNodes.Node node;

	RedlockNodes nodes;

	LockScripts.Keys keys = LockScripts.Keys.of(KeyNaming.defaults(), "round");

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.connections = TestConnections.lettuce(redis.server());
		this.node = new RedlockNodes.Node("node 1", new LockScripts(ScriptExecutor.of(this.connections), this.connections));
		this.nodes = new RedlockNodes(List.of(this.node), NODE_TIMEOUT,
				new ThrottledLog(LogFactory.getLog(RedlockRoundTests.class), Duration.ofMinutes(1), "test"));
		// As after a failed call: the next calls go through the executor, chained on the node.
		this.node.suspect = true;
	}

	@AfterEach
	void tearDown() {
		this.connections.destroy();
	}

	@Test
	void aCallChainedBehindOneTheExecutorRefusedIsAnsweredAndTheChainGoesOn() throws Exception {
		GateExecutor executor = new GateExecutor();
		this.nodes.setExecutor(executor);
		CompletionStage<RedlockNodes.Tally> first = this.nodes.release(this.keys, "owner");
		CompletionStage<RedlockNodes.Tally> second = this.nodes.release(this.keys, "owner");
		// The executor shuts down (a registry stop) while the second call waits for the first to be sent.
		executor.refusing = true;
		executor.runQueued();
		assertThat(complete(first).refused()).isEqualTo(1);
		RedlockNodes.Tally refused = complete(second);
		assertThat(refused.failed()).isEqualTo(1);
		assertThat(refused.failure()).isInstanceOf(RejectedExecutionException.class);
		// The chain is not dead: once the executor accepts again, the node gets and answers the next call.
		executor.refusing = false;
		CompletionStage<RedlockNodes.Tally> third = this.nodes.release(this.keys, "owner");
		executor.runQueued();
		assertThat(complete(third).refused()).isEqualTo(1);
	}

	@Test
	void aRoundEndsAtItsDeadlineWhenACallsCompletionIsLost() throws Exception {
		// An executor that drops its tasks: the call is never sent, its completion never comes.
		this.nodes.setExecutor((task) -> {
		});
		long started = System.nanoTime();
		RedlockNodes.Tally tally = complete(this.nodes.release(this.keys, "owner"));
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(tally.failed()).isEqualTo(1);
		assertThat(tally.done() + tally.refused()).isZero();
		assertThat(took).isGreaterThanOrEqualTo(this.nodes.roundTimeout().minusMillis(50));
	}

	@Test
	void aSynchronousWaitOnALostStageFailsWithinItsBound() {
		CompletableFuture<String> lost = new CompletableFuture<>();
		long started = System.nanoTime();
		assertThatThrownBy(() -> this.nodes.await(lost, "acquisition of 'round'"))
			.isInstanceOf(QueryTimeoutException.class)
			.hasMessageContaining("acquisition of 'round'")
			.hasMessageContaining("lost completion");
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(took).isGreaterThanOrEqualTo(this.nodes.callTimeout().minusMillis(50))
			.isLessThan(this.nodes.callTimeout().plusSeconds(PATIENCE_SECONDS));
		// An interrupt neither ends the wait early nor is swallowed.
		Thread.currentThread().interrupt();
		assertThat(this.nodes.await(CompletableFuture.completedFuture("done"), "release")).isEqualTo("done");
		assertThat(Thread.interrupted()).isTrue();
	}

	private static <T> T complete(CompletionStage<T> stage) throws Exception {
		return stage.toCompletableFuture().get(PATIENCE_SECONDS, TimeUnit.SECONDS);
	}

	/** Holds its tasks until {@link #runQueued()}; refuses new ones while {@link #refusing}. */
	static final class GateExecutor implements Executor {

		final BlockingQueue<Runnable> queued = new LinkedBlockingQueue<>();

		volatile boolean refusing;

		@Override
		public void execute(Runnable task) {
			if (this.refusing) {
				throw new RejectedExecutionException("The executor is shut down");
			}
			this.queued.add(task);
		}

		void runQueued() {
			Runnable task;
			while ((task = this.queued.poll()) != null) {
				try {
					task.run();
				}
				catch (RejectedExecutionException ex) {
					// A refusal must reach the call as a failed reply, never escape to whoever ran the previous one.
					throw new AssertionError("A refused dispatch escaped to the executor's caller", ex);
				}
			}
		}

	}

}

package io.rediskit.keys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import io.rediskit.support.RedisTestServer;
import io.rediskit.support.TestConnections;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key tools' pipelining on one real server: a deduplicating scan across shrinks of the server's table (when
 * SCAN may return a key twice), and the big-key report's bound on commands in flight.
 */
class KeyToolsPipelineTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	@BeforeEach
	void setUp() {
		redis.flushAll();
	}

	@Test
	void aScanAcrossTableShrinksReturnsEveryKeyOnce() {
		int keys = 2000;
		redis.server().command("DEBUG", "POPULATE", Integer.toString(keys), "d", "1");
		KeyTools tools = new KeyTools(redis.connections(), List.of());
		// Paced by a pause, so each SCAN is sent when its batch is asked for: both scans see the same table.
		KeyScanOptions options = KeyScanOptions.matching("d:*").withBatchSize(50).withPause(Duration.ofNanos(1));
		KeyScan deduplicated = tools.scan(options);
		KeyScan raw = tools.scan(options.withDedupe(false));
		List<String> once = new ArrayList<>();
		List<String> all = new ArrayList<>();
		for (int cycle = 0; cycle < 6 && !deduplicated.isDone(); cycle++) {
			// The table grows for 40 000 more keys, then shrinks back when they go: SCAN's duplicates come
			// from a shrink between two calls.
			redis.server().command("DEBUG", "POPULATE", "40000", "junk" + cycle, "1");
			once.addAll(deduplicated.nextBatch());
			all.addAll(raw.nextBatch());
			redis.server().command("EVAL", "for i = 0, 39999 do redis.call('DEL', ARGV[1] .. ':' .. i) end", "0",
					"junk" + cycle);
			awaitShrunk();
			once.addAll(deduplicated.nextBatch());
			all.addAll(raw.nextBatch());
		}
		deduplicated.forEachRemaining(once::add);
		raw.forEachRemaining(all::add);
		Set<String> distinct = new HashSet<>(all);
		System.out.printf("Scan across shrinks: %d keys, %d returned twice without dedupe%n", distinct.size(),
				all.size() - distinct.size());
		assertThat(once).doesNotHaveDuplicates().hasSize(keys).containsExactlyInAnyOrderElementsOf(distinct);
		assertThat(deduplicated.returned()).isEqualTo(keys);
	}

	@Test
	void aBigKeyReportKeepsABoundedNumberOfCommandsInFlight() {
		redis.server().command("DEBUG", "POPULATE", "3000", "r", "10");
		redis.server().command("HSET", "r:hash", "f", "v");
		InFlight inFlight = new InFlight();
		LettuceConnectionFactory connections = TestConnections.lettuce(redis.server());
		try {
			// Before the first connection: the client hands its listeners to each connection it opens.
			((RedisClient) connections.getRequiredNativeClient()).addListener(inFlight);
			KeyTools tools = new KeyTools(connections, List.of());
			BigKeyReport report = tools.bigKeys(BigKeyOptions.of(KeyScanOptions.matching("r:*").withBatchSize(1000)));
			assertThat(report.keysScanned()).isEqualTo(3001);
			assertThat(report.largestByElements().get("string").get(0).elements()).isEqualTo(10);
			assertThat(report.largestByElements().get("hash").get(0).elements()).isEqualTo(1);
		}
		finally {
			connections.destroy();
		}
		assertThat(inFlight.started.get()).as("commands seen").isGreaterThan(5 * 3000);
		// Five commands per key, two chunks of keys, and the scan's one SCAN read ahead.
		assertThat(inFlight.max.get()).isLessThanOrEqualTo(2 * KeyTools.REPORT_CHUNK * 5 + 1);
	}

	/** Waits, 10 s at most, for the server to shrink the key table and finish rehashing it. */
	private static void awaitShrunk() {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (mainTableSize() >= 8192) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("The key table did not shrink within 10 s: " + redis.server().command("DEBUG",
						"HTSTATS", "0"));
			}
			Thread.onSpinWait();
		}
	}

	private static long mainTableSize() {
		String stats = String.valueOf(redis.server().command("DEBUG", "HTSTATS", "0"));
		if (stats.contains("rehashing target")) {
			return Long.MAX_VALUE;
		}
		int at = stats.indexOf("table size: ");
		String digits = stats.substring(at + "table size: ".length()).split("\\D", 2)[0];
		return Long.parseLong(digits);
	}

	/** Counts the commands sent and not yet answered, and the most at once. */
	static final class InFlight implements CommandListener {

		final AtomicLong started = new AtomicLong();

		final AtomicInteger now = new AtomicInteger();

		final AtomicInteger max = new AtomicInteger();

		@Override
		public void commandStarted(CommandStartedEvent event) {
			this.started.incrementAndGet();
			this.max.accumulateAndGet(this.now.incrementAndGet(), Math::max);
		}

		@Override
		public void commandSucceeded(CommandSucceededEvent event) {
			this.now.decrementAndGet();
		}

		@Override
		public void commandFailed(CommandFailedEvent event) {
			this.now.decrementAndGet();
		}

	}

}

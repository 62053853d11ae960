package io.rediskit.keys;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.rediskit.testsupport.RedisTopology;
import io.rediskit.testsupport.SharedTopologies;
import io.rediskit.testsupport.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key space at scale on the shared cluster: 3 x 10^5 keys by default, for CI's time budget (10^6 with
 * {@code -Drediskit.keys.clusterKeys=1000000}, the run in {@code docs/keys.md})
 * found exactly once across the three masters, a scan that keeps SCAN's guarantee while other keys come and go,
 * and deletion by pattern of them all. Keys are written with MSET, 61 keys per hash tag, so loading is a few
 * thousand pipelined commands.
 */
@ExtendWith(SharedTopologies.class)
class ClusterKeySpaceTests implements SharedTopologies.OnTopology {

	static final int KEYS = Integer.getInteger("rediskit.keys.clusterKeys", 300_000);

	RedisTopology redis;

	@Override
	public Topology topology() {
		return Topology.CLUSTER;
	}

	@Override
	public void connect(RedisTopology redis) {
		this.redis = redis;
	}

	@Test
	void everyKeyIsFoundOnceWhileOthersComeAndGoThenDeletedByPattern() throws Exception {
		String base = this.redis.unique("many");
		RedisClusterAsyncCommands<byte[], byte[]> commands = new KeyNodes(this.redis.connections()).routing();
		int tags = 16384;
		long start = System.nanoTime();
		List<RedisFuture<String>> writes = new ArrayList<>();
		Map<Integer, Map<byte[], byte[]>> pending = new HashMap<>();
		for (int i = 0; i < KEYS; i++) {
			int tag = i % tags;
			Map<byte[], byte[]> group = pending.computeIfAbsent(tag, (t) -> new HashMap<>());
			group.put(key(base, "s", tag, i), new byte[] { 1 });
			if (group.size() == 61) {
				writes.add(commands.mset(pending.remove(tag)));
			}
		}
		pending.values().forEach((group) -> writes.add(commands.mset(group)));
		for (RedisFuture<String> write : writes) {
			write.get(120, TimeUnit.SECONDS);
		}
		System.out.printf("Loaded %d keys in %d ms%n", KEYS, (System.nanoTime() - start) / 1_000_000);

		// Churn: keys of another prefix under the same pattern are added and removed while the scan runs.
		AtomicBoolean churning = new AtomicBoolean(true);
		AtomicLong churned = new AtomicLong();
		CompletableFuture<Void> churn = CompletableFuture.runAsync(() -> {
			int i = 0;
			while (churning.get()) {
				List<RedisFuture<?>> batch = new ArrayList<>();
				for (int j = 0; j < 100; j++, i++) {
					batch.add(commands.set(key(base, "c", i % tags, i), new byte[] { 1 }));
					if (i >= 500) {
						batch.add(commands.del(key(base, "c", (i - 500) % tags, i - 500)));
					}
				}
				for (RedisFuture<?> f : batch) {
					try {
						f.get(30, TimeUnit.SECONDS);
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}
				churned.addAndGet(100);
			}
		});
		start = System.nanoTime();
		BitSet found = new BitSet(KEYS);
		long duplicates = 0;
		long churnSeen = 0;
		KeyTools tools = new KeyTools(this.redis.connections(), List.of());
		KeyScan scan = tools.scan(KeyScanOptions.matching(KeyPatterns.escape(base) + ":*").withBatchSize(1000));
		while (scan.hasNext()) {
			String key = scan.next();
			int colon = key.lastIndexOf(':');
			if (key.substring(0, colon).endsWith(":s")) {
				int index = Integer.parseInt(key.substring(colon + 1));
				duplicates += found.get(index) ? 1 : 0;
				found.set(index);
			}
			else {
				churnSeen++;
			}
		}
		churning.set(false);
		churn.get(60, TimeUnit.SECONDS);
		System.out.printf("Scanned %d keys (+%d churning, %d churn writes) in %d ms%n", found.cardinality(), churnSeen,
				churned.get(), (System.nanoTime() - start) / 1_000_000);
		assertThat(duplicates).isZero();
		assertThat(found.cardinality()).isEqualTo(KEYS);
		assertThat(churned.get()).isPositive();

		DeletionReport deleted = tools.deleteByPattern(KeyScanOptions.matching(KeyPatterns.escape(base) + ":*"),
				DeleteOptions.defaults().withBatchSize(1000));
		assertThat(deleted.keys()).isGreaterThanOrEqualTo(KEYS);
		assertThat(this.redis.keysPerMaster(KeyPatterns.escape(base) + ":*").values())
			.allSatisfy((n) -> assertThat(n).isZero());
	}

	private static byte[] key(String base, String kind, int tag, int index) {
		return (base + ":{t" + tag + "}:" + kind + ":" + index).getBytes(StandardCharsets.UTF_8);
	}

}

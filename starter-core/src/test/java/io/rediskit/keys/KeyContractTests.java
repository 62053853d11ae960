package io.rediskit.keys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.observation.ObservationRegistry;
import io.rediskit.support.HostileNames;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.Observations;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the key tools promise on every topology (run once per {@link Topology}): every master
 * scanned, each key once, user input escaped, deletions complete, big keys found wherever they live, each call one
 * observation of the whole call.
 */
class KeyContractTests extends TopologyContract {

	KeyTools tools;

	@BeforeEach
	void setUpTools() {
		this.tools = new KeyTools(this.redis.connections(), List.of());
	}

	@Test
	void everyKeyOnEveryMasterIsFoundExactlyOnceAndDeletedByPattern() throws Exception {
		String base = this.redis.unique("scan");
		List<String> names = HostileNames.generate("k", 5000, 5);
		List<String> keys = new ArrayList<>();
		for (String name : names) {
			keys.add(base + ":" + name.replace("\u0000", ""));
		}
		write(keys);
		String pattern = KeyPatterns.startingWith(base + ":");
		List<String> found = new ArrayList<>();
		this.tools.scan(KeyScanOptions.matching(pattern).withBatchSize(200)).forEachRemaining(found::add);
		assertThat(found).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(new java.util.HashSet<>(keys));
		if (this.topology == Topology.CLUSTER) {
			assertThat(this.redis.keysPerMaster(pattern).values()).hasSize(3).allSatisfy((n) -> assertThat(n).isPositive());
		}
		DeletionReport dry = this.tools.deleteByPattern(KeyScanOptions.matching(pattern),
				DeleteOptions.defaults().asDryRun());
		assertThat(dry.keys()).isEqualTo(found.size());
		DeletionReport deleted = this.tools.deleteByPattern(KeyScanOptions.matching(pattern),
				DeleteOptions.defaults().withBatchSize(100));
		assertThat(deleted.keys()).isEqualTo(found.size());
		assertThat(this.redis.keysPerMaster(pattern).values()).allSatisfy((n) -> assertThat(n).isZero());
	}

	@Test
	void globCharactersInUserInputCannotWidenTheScan() throws Exception {
		String base = this.redis.unique("glob");
		write(List.of(base + ":*", base + ":a", base + ":[a]", base + ":?"));
		List<String> found = new ArrayList<>();
		this.tools.scan(KeyScanOptions.matching(base + ":" + KeyPatterns.escape("*"))).forEachRemaining(found::add);
		assertThat(found).containsExactly(base + ":*");
		DeletionReport deleted = this.tools.deleteByPattern(
				KeyScanOptions.matching(base + ":" + KeyPatterns.escape("[a]")), DeleteOptions.defaults());
		assertThat(deleted.keys()).isEqualTo(1);
		assertThat(this.redis.exists(base + ":a")).isTrue();
		this.tools.deleteByPattern(KeyScanOptions.matching(KeyPatterns.startingWith(base)), DeleteOptions.defaults());
	}

	@Test
	void bigKeysAreReportedAndDeletedWhereverTheyLive() throws Exception {
		String base = this.redis.unique("big");
		RedisClusterAsyncCommands<byte[], byte[]> commands = new KeyNodes(this.redis.connections()).routing();
		List<RedisFuture<Long>> writes = new ArrayList<>();
		for (int k = 0; k < 6; k++) {
			byte[] key = (base + ":" + k).getBytes();
			for (int from = 0; from < (k + 1) * 1000; from += 500) {
				Map<byte[], byte[]> fields = new HashMap<>();
				for (int i = from; i < from + 500; i++) {
					fields.put(("f" + i).getBytes(), "v".getBytes());
				}
				writes.add(commands.hset(key, fields));
			}
		}
		for (RedisFuture<Long> write : writes) {
			write.get();
		}
		BigKeyReport report = this.tools.bigKeys(new BigKeyOptions(KeyScanOptions.matching(KeyPatterns.startingWith(base)), 3, 5, ':'));
		assertThat(report.keysScanned()).isEqualTo(6);
		assertThat(report.largestByElements().get("hash")).extracting(KeyInfo::elements).containsExactly(6000L, 5000L, 4000L);
		for (int k = 0; k < 6; k++) {
			assertThat(this.tools.deleteKey(base + ":" + k, DeleteOptions.defaults().withPause(Duration.ZERO)).elements())
				.isEqualTo((k + 1) * 1000);
			assertThat(this.redis.exists(base + ":" + k)).isFalse();
		}
	}

	@Test
	void eachCallIsOneObservationOfTheWholeCallAndAScanOneOfEachBatchOnEveryMaster() throws Exception {
		ObservationRecorder recorder = new ObservationRecorder();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(recorder);
		KeyTools observed = new KeyTools(this.redis.connections(), List.of());
		observed.setObservations(Observations.of(registry, null));
		String base = this.redis.unique("observed");
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			keys.add(base + ":" + i);
		}
		write(keys);
		String pattern = KeyPatterns.startingWith(base + ":");
		List<String> found = new ArrayList<>();
		KeyScan scan = observed.scan(KeyScanOptions.matching(pattern).withBatchSize(50));
		int batches = 0;
		while (!scan.isDone()) {
			found.addAll(scan.nextBatch());
			batches++;
			assertThat(recorder.open(RedisKitObservation.KEYS_OPERATION)).as("between batches").isEmpty();
		}
		assertThat(found).hasSize(600);
		assertThat(observed.bigKeys(BigKeyOptions.of(KeyScanOptions.matching(pattern))).keysScanned()).isEqualTo(600);
		assertThat(observed.deleteByPattern(KeyScanOptions.matching(pattern), DeleteOptions.defaults()).keys())
			.isEqualTo(600);
		assertThat(recorder.open(RedisKitObservation.KEYS_OPERATION)).isEmpty();
		List<String> calls = recorder.calls(RedisKitObservation.KEYS_OPERATION, "success");
		assertThat(calls).hasSize(batches + 2).endsWith("keys big-keys", "keys delete-pattern");
		assertThat(calls.subList(0, batches)).as("one per batch of the scan").containsOnly("keys scan");
		assertThat(recorder.stopped(RedisKitObservation.KEYS_OPERATION)).hasSize(batches + 2);
	}

	private void write(List<String> keys) throws Exception {
		RedisClusterAsyncCommands<byte[], byte[]> commands = new KeyNodes(this.redis.connections()).routing();
		List<RedisFuture<String>> writes = new ArrayList<>();
		for (String key : keys) {
			writes.add(commands.set(key.getBytes(java.nio.charset.StandardCharsets.UTF_8), new byte[] { 1 }));
		}
		for (RedisFuture<String> write : writes) {
			write.get();
		}
	}

}

package io.rediskit.keys;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The key tools on one real server: escaping, types, resuming, pacing, the big-key report, deletions, lazyfree. */
class KeyToolsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	final List<String> progress = new CopyOnWriteArrayList<>();

	KeyTools tools;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.tools = new KeyTools(redis.connections(), List.of(new KeyToolsListener() {

			@Override
			public void onDeleteProgress(String operation, long keys, long elements, Duration elapsed) {
				KeyToolsTests.this.progress.add(operation);
			}

		}));
	}

	@Test
	void globCharactersInUserInputMatchOnlyThemselves() {
		for (String key : List.of("user:a*:x", "user:ab:x", "user:a?:x", "user:a[b]:x", "user:a\\:x", "user:a:x")) {
			redis.server().command("SET", key, "1");
		}
		assertThat(scanAll(KeyScanOptions.matching("user:" + KeyPatterns.escape("a*") + ":*")))
			.containsExactly("user:a*:x");
		assertThat(scanAll(KeyScanOptions.matching("user:" + KeyPatterns.escape("a?") + ":*")))
			.containsExactly("user:a?:x");
		assertThat(scanAll(KeyScanOptions.matching("user:" + KeyPatterns.escape("a[b]") + ":*")))
			.containsExactly("user:a[b]:x");
		assertThat(scanAll(KeyScanOptions.matching(KeyPatterns.startingWith("user:a\\"))))
			.containsExactly("user:a\\:x");
		// Unescaped, the same input widens the pattern: what the escaping prevents.
		assertThat(scanAll(KeyScanOptions.matching("user:a*:*"))).hasSizeGreaterThan(1);
	}

	@Test
	void scansByTypeAndResumesFromACursor() {
		for (int i = 0; i < 3000; i++) {
			redis.server().command("SET", "s:" + i, "1");
		}
		redis.server().command("HSET", "s:hash", "f", "v");
		assertThat(scanAll(KeyScanOptions.matching("s:*").withType("hash"))).containsExactly("s:hash");
		KeyScanOptions options = KeyScanOptions.matching("s:*").withBatchSize(100);
		KeyScan first = this.tools.scan(options);
		Set<String> seen = new HashSet<>(first.nextBatch());
		seen.addAll(first.nextBatch());
		String cursor = first.cursor();
		assertThat(cursor).startsWith("v1;-=");
		KeyScan resumed = this.tools.scan(options, cursor);
		resumed.forEachRemaining(seen::add);
		assertThat(seen).hasSize(3001);
		assertThat(resumed.isDone()).isTrue();
		assertThat(resumed.cursor()).isEqualTo("v1;");
		assertThatIllegalArgumentException().isThrownBy(() -> this.tools.scan(options, "garbage"));
	}

	@Test
	void aPacedScanTakesAtLeastItsPace() {
		for (int i = 0; i < 2000; i++) {
			redis.server().command("SET", "p:" + i, "1");
		}
		long start = System.nanoTime();
		assertThat(this.tools.scan(KeyScanOptions.matching("p:*").withBatchSize(100).withKeysPerSecond(10_000)).stream()
			.count()).isEqualTo(2000);
		// 2000 keys at 10 000/s: at least 0.2 s less the last batch's share.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
	}

	@Test
	void bigKeyReportRanksByMemoryAndElementsWithTotals() {
		for (int i = 0; i < 2000; i++) {
			redis.server().command("HSET", "app:big", "field" + i, "value" + i);
		}
		redis.server().command("HSET", "app:small", "f", "v");
		redis.server().command("RPUSH", "queue:jobs", "a", "b", "c");
		redis.server().command("SET", "plain", "x".repeat(100));
		redis.server().command("PEXPIRE", "app:small", "600000");
		BigKeyReport report = this.tools.bigKeys(new BigKeyOptions(KeyScanOptions.matching("*"), 2, 5, ':'));
		assertThat(report.keysScanned()).isEqualTo(4);
		assertThat(report.largestByMemory()).extracting(KeyInfo::key).containsExactly("app:big", "plain");
		KeyInfo big = report.largestByMemory().get(0);
		assertThat(big.type()).isEqualTo("hash");
		assertThat(big.elements()).isEqualTo(2000);
		assertThat(big.encoding()).isEqualTo("hashtable");
		assertThat(big.ttlMillis()).isEqualTo(-1);
		assertThat(report.largestByElements().get("hash")).extracting(KeyInfo::key).containsExactly("app:big", "app:small");
		assertThat(report.largestByElements().get("hash").get(1).ttlMillis()).isPositive();
		assertThat(report.largestByElements().get("string").get(0).elements()).isEqualTo(100);
		assertThat(report.totalsByType().get("hash").keys()).isEqualTo(2);
		assertThat(report.totalsByType().get("hash").elements()).isEqualTo(2001);
		assertThat(report.totalsByPrefix().keySet()).containsExactly("app:", "plain", "queue:");
	}

	@Test
	void deleteKeyEmptiesEachCollectionTypeInBatchesThenUnlinks() {
		for (int i = 0; i < 1234; i++) {
			redis.server().command("HSET", "h", "f" + i, "v");
			redis.server().command("SADD", "s", "m" + i);
			redis.server().command("ZADD", "z", Integer.toString(i), "m" + i);
			redis.server().command("RPUSH", "l", "e" + i);
		}
		redis.server().command("SET", "str", "v");
		DeleteOptions options = DeleteOptions.defaults().withBatchSize(100).withPause(Duration.ofMillis(1));
		for (String key : List.of("h", "s", "z", "l")) {
			DeletionReport report = this.tools.deleteKey(key, options);
			assertThat(report.elements()).as(key).isEqualTo(1234);
			assertThat(redis.server().command("EXISTS", key)).isEqualTo(0L);
		}
		assertThat(this.tools.deleteKey("str", options).keys()).isEqualTo(1);
		assertThat(this.tools.deleteKey("str", options).keys()).isZero();
		assertThat(this.progress).contains("delete-key");
		redis.server().command("SET", "kept", "v");
		DeletionReport dry = this.tools.deleteKey("kept", options.asDryRun());
		assertThat(dry.dryRun()).isTrue();
		assertThat(dry.listed()).containsExactly("kept");
		assertThat(redis.server().command("EXISTS", "kept")).isEqualTo(1L);
	}

	@Test
	void deleteByPatternDryRunListsThenDeletes() {
		for (int i = 0; i < 500; i++) {
			redis.server().command("SET", "tmp:" + i, "1");
		}
		redis.server().command("SET", "keep:1", "1");
		DeletionReport dry = this.tools.deleteByPattern(KeyScanOptions.matching("tmp:*"),
				new DeleteOptions(100, Duration.ZERO, true, 10));
		assertThat(dry.keys()).isEqualTo(500);
		assertThat(dry.listed()).hasSize(10).allMatch((key) -> key.startsWith("tmp:"));
		assertThat(redis.server().dbSize()).isEqualTo(501);
		DeletionReport done = this.tools.deleteByPattern(KeyScanOptions.matching("tmp:*"), DeleteOptions.defaults());
		assertThat(done.keys()).isEqualTo(500);
		assertThat(redis.server().dbSize()).isEqualTo(1);
	}

	@Test
	void lazyfreeSettingsThatBlockAreReported() {
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-expire", "no");
		assertThat(this.tools.lazyfreeWarnings()).anyMatch((line) -> line.contains("lazyfree-lazy-expire is no"));
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-expire", "yes");
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-eviction", "yes");
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
		assertThat(this.tools.lazyfreeWarnings()).isEmpty();
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-expire", "no");
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-eviction", "no");
		redis.server().command("CONFIG", "SET", "lazyfree-lazy-user-del", "no");
	}

	@Test
	void optionsAreValidatedWithTheComponent() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> KeyScanOptions.matching(""))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("pattern"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> KeyScanOptions.matching("*").withBatchSize(0))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("batchSize"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> KeyScanOptions.matching("*").withType("hash SCAN"))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("type"));
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> DeleteOptions.defaults().withBatchSize(10_001))
			.satisfies((ex) -> assertThat(ex.getComponent()).isEqualTo("batchSize"));
	}

	private List<String> scanAll(KeyScanOptions options) {
		List<String> keys = new ArrayList<>();
		this.tools.scan(options).forEachRemaining(keys::add);
		return keys;
	}

}

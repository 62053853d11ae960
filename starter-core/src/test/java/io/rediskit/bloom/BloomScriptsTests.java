package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The add script run directly: the header it writes, its TTL, its replies, and its refusal of other sizing; with the
 * check and seeding scripts, the completeness mark that only a seeding sets and every creation of the shard clears.
 */
class BloomScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final byte[] KEY = "f".getBytes(StandardCharsets.UTF_8);

	private static final byte[] MARK = "f:complete".getBytes(StandardCharsets.UTF_8);

	private final BloomLayout layout = new BloomLayout(1000, 3, 1, 1000);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	private List<Object> add(BloomLayout layout, long ttlMillis, long... offsets) {
		return redis.scripts().execute(BloomScripts.ADD, ReturnType.MULTI, 2,
				BloomScripts.add(KEY, MARK, layout, ttlMillis, BloomSeeding.NO_TOKEN, offsets));
	}

	/** Per item whether it was new, as the filter reads the script's reply. */
	private List<Boolean> added(BloomLayout layout, long ttlMillis, long... offsets) {
		return BloomScripts.readAdd(add(layout, ttlMillis, offsets), "f", layout, offsets.length / layout.hashes());
	}

	@Test
	void createsTheHeaderWithTheFirstBitsAndRepliesPerItem() {
		assertThat(add(this.layout, 0, 128, 129, 130, 130, 131, 132))
			.as("the bits' old values, one list per BITFIELD").containsExactly(1L, List.of(0L, 0L, 0L, 1L, 0L, 0L));
		redis.flushAll();
		assertThat(added(this.layout, 0, 128, 129, 130, 130, 131, 132)).containsExactly(true, true);
		assertThat(redis.server().command("BITFIELD", "f", "GET", "i64", "0", "GET", "u16", "64", "GET", "u16", "80",
				"GET", "u32", "96")).isEqualTo(List.of(1000L, 3L, 1L, BloomLayout.MAGIC));
		// The second item shared bit 130 with the first but had new ones; now both are in.
		assertThat(added(this.layout, 0, 128, 129, 133, 132, 131, 128)).containsExactly(true, false);
		assertThat(redis.server().command("TTL", "f")).isEqualTo(-1L);
		assertThat(redis.server().command("BITCOUNT", "f", "16", "-1")).isEqualTo(6L);
	}

	@Test
	void onlyASeedingWhoseTokenSurvivedMarksTheShardCompleteAndCreatingItAnewClearsTheMark() {
		byte[] token = BloomSeeding.token();
		redis.scripts().execute(BloomScripts.ADD, ReturnType.MULTI, 2,
				BloomScripts.add(KEY, MARK, this.layout, 60_000, token, new long[0]));
		assertThat(redis.server().command("EXISTS", "f")).as("a seeding creates the shard").isEqualTo(1L);
		assertThat(complete()).isZero();
		assertThat(end(BloomSeeding.token())).as("another seeding's token").isZero();
		assertThat(end(token)).isEqualTo(1L);
		assertThat(complete()).isEqualTo(1L);
		assertThat((Long) redis.server().command("PTTL", "f:complete")).as("the mark lives as long as the shard")
			.isBetween(1L, 60_000L);
		assertThat(check(128, 129, 130)).as("never seen, from a complete shard").endsWith(0L, 0L, 0L, 1L);
		add(this.layout, 0, 128, 129, 130);
		assertThat(complete()).as("an add to the shard keeps the mark").isEqualTo(1L);
		assertThat(check(128, 129, 130)).endsWith(1L, 1L, 1L, 1L);
		// Lost without its mark (an eviction), then created anew by an add: the mark goes with the creation.
		redis.server().command("DEL", "f");
		assertThat(check(128, 129, 130)).as("a shard without its header is not complete").endsWith(0L);
		add(this.layout, 0, 131, 132, 133);
		assertThat(redis.server().command("EXISTS", "f:complete")).isEqualTo(0L);
		assertThat(check(128, 129, 130)).endsWith(0L, 0L, 0L, 0L);
		// A seeding whose shard was lost and recreated meanwhile does not mark it complete.
		byte[] next = BloomSeeding.token();
		redis.scripts().execute(BloomScripts.ADD, ReturnType.MULTI, 2,
				BloomScripts.add(KEY, MARK, this.layout, 0, next, new long[0]));
		redis.server().command("DEL", "f");
		add(this.layout, 0, 128, 129, 130);
		assertThat(end(next)).isZero();
		assertThat(complete()).isZero();
	}

	private long complete() {
		return redis.scripts().execute(BloomSeeding.IS_COMPLETE, ReturnType.INTEGER, 2, KEY, MARK);
	}

	private long end(byte[] token) {
		return redis.scripts().execute(BloomSeeding.END, ReturnType.INTEGER, 2, KEY, MARK, token);
	}

	private List<Object> check(long... offsets) {
		return redis.scripts().execute(BloomScripts.CHECK, ReturnType.MULTI, 2, BloomScripts.check(KEY, MARK, offsets));
	}

	@Test
	void setsTheTtlOnlyWhenItCreatesTheFilter() {
		add(this.layout, 60_000, 128, 129, 130);
		long ttl = (Long) redis.server().command("PTTL", "f");
		assertThat(ttl).isBetween(1L, 60_000L);
		redis.server().command("PERSIST", "f");
		add(this.layout, 60_000, 131, 132, 133);
		assertThat(redis.server().command("PTTL", "f")).as("an existing filter keeps its expiry").isEqualTo(-1L);
	}

	@Test
	void refusesAShardOfOtherSizingAndSetsNothing() {
		add(this.layout, 0, 128, 129, 130);
		List<Object> reply = add(new BloomLayout(2000, 3, 1, 2000), 0, 140, 141, 142);
		assertThat(reply).containsExactly(0L, 1000L, 3L, 1L, BloomLayout.MAGIC);
		assertThat(redis.server().command("BITCOUNT", "f", "16", "-1")).isEqualTo(3L);
		assertThatExceptionOfType(BloomFilterSizingException.class)
			.isThrownBy(() -> BloomScripts.readAdd(reply, "f", new BloomLayout(2000, 3, 1, 2000), 1))
			.withMessageContaining("stored in Redis with 1000 bits, 3 hashes, 1 shard(s)");
	}

	@Test
	void batchesBeyondOneUnpackAreSetInChunks() {
		// 3000 items x 3 offsets = 9000 operations of 4 values, over the 8000 values Lua's unpack takes at once.
		long[] offsets = new long[9000];
		for (int i = 0; i < offsets.length; i++) {
			offsets[i] = 128 + (i % 1000);
		}
		BloomLayout wide = new BloomLayout(1000, 3, 1, 1000);
		List<Object> reply = add(wide, 0, offsets);
		assertThat(reply).as("1, then the old bits of 1996 operations per BITFIELD").hasSize(6);
		List<Boolean> added = BloomScripts.readAdd(reply, "f", wide, 3000);
		assertThat(added.subList(0, 334)).containsOnly(true);
		assertThat(added.subList(334, 3000)).containsOnly(false);
		assertThat(redis.server().command("BITCOUNT", "f", "16", "-1")).isEqualTo(1000L);
	}

	@Test
	void aLookupOfAMissingShardReadsAsEmpty() {
		List<Object> reply = CommandExecutor.of(redis.connections())
			.execute(BloomScripts.LOOKUP, ReturnType.MULTI, KEY, BloomScripts.lookup(new long[] { 128, 129, 130 }));
		assertThat(BloomScripts.readLookup(reply, "f", this.layout, 1)).containsExactly(false);
		assertThat(redis.server().command("EXISTS", "f")).isEqualTo(0L);
	}

}

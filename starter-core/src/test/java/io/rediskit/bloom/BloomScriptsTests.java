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

/** The add script run directly: the header it writes, its TTL, its replies, and its refusal of other sizing. */
class BloomScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final byte[] KEY = "f".getBytes(StandardCharsets.UTF_8);

	private final BloomLayout layout = new BloomLayout(1000, 3, 1, 1000);

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	private List<Object> add(BloomLayout layout, long ttlMillis, long... offsets) {
		return redis.scripts().execute(BloomScripts.ADD, ReturnType.MULTI, 1, BloomScripts.add(KEY, layout, ttlMillis, offsets));
	}

	@Test
	void createsTheHeaderWithTheFirstBitsAndRepliesPerItem() {
		assertThat(add(this.layout, 0, 128, 129, 130, 130, 131, 132)).containsExactly(1L, 1L, 1L);
		assertThat(redis.server().command("BITFIELD", "f", "GET", "i64", "0", "GET", "u16", "64", "GET", "u16", "80",
				"GET", "u32", "96")).isEqualTo(List.of(1000L, 3L, 1L, BloomLayout.MAGIC));
		// The second item shared bit 130 with the first but had new ones; now both are in.
		assertThat(add(this.layout, 0, 128, 129, 130, 132, 131, 128)).containsExactly(1L, 0L, 0L);
		assertThat(redis.server().command("TTL", "f")).isEqualTo(-1L);
		assertThat(redis.server().command("BITCOUNT", "f", "16", "-1")).isEqualTo(5L);
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
		// 3000 items x 3 offsets = 9000 offsets, over the 8000 values Lua's unpack takes at once.
		long[] offsets = new long[9000];
		for (int i = 0; i < offsets.length; i++) {
			offsets[i] = 128 + (i % 1000);
		}
		BloomLayout wide = new BloomLayout(1000, 3, 1, 1000);
		List<Object> reply = add(wide, 0, offsets);
		assertThat(reply).hasSize(3001);
		assertThat(reply.subList(1, 335)).containsOnly(1L);
		assertThat(reply.subList(335, 3001)).containsOnly(0L);
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

package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.rediskit.testsupport.RedisServerBinary;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What redis-kit detects of the server or relies on where engines and versions differ, on every topology (run
 * once per {@link Topology}, and by CI once per engine): the commands it asks for with {@code COMMAND INFO}, and the
 * clock a script reads. Each difference is listed in {@code docs/servers.md}.
 */
class ServerContractTests extends TopologyContract {

	/**
	 * Writes a key with a 60 s expiry, reads {@code TIME}, spins the server for some milliseconds, reads {@code TIME}
	 * and the key's {@code PTTL}: the two times and the {@code PTTL}.
	 */
	/** Counts its runs in a key, so that a call applied twice shows. */
	private static final LuaScript COUNTING = LuaScript.fromClasspath("io/rediskit/support/counting.lua");

	private static final String CLOCK_SCRIPT = """
			redis.call('SET', KEYS[1], '1', 'PX', 60000)
			local t0 = redis.call('TIME')
			local x = 0
			for i = 1, 2000000 do x = x + i end
			local t1 = redis.call('TIME')
			return { t0[1] * 1000000 + t0[2], t1[1] * 1000000 + t1[2], redis.call('PTTL', KEYS[1]) }
			""";

	@Test
	void waitAofIsDetectedWithCommandInfo() {
		// WAITAOF came with Redis 7.2, and so is in every Valkey (a fork of 7.2.4).
		assertThat(ReplicaWait.waitAofAvailable(this.redis.connections())).isEqualTo(servers().atLeast(7, 2));
	}

	@Test
	void fromRedisSevenTwoAndInValkeyAScriptReadsOneClock() {
		String key = this.redis.unique("clock");
		RedisServerProcess master = this.redis.masterFor(key);
		List<?> reply = (List<?>) master.command("EVAL", CLOCK_SCRIPT, "1", key);
		long before = (Long) reply.get(0);
		long after = (Long) reply.get(1);
		long remaining = (Long) reply.get(2);
		if (servers().atLeast(7, 2)) {
			// The clock is sampled once per script: TIME, and the expiry of what the script writes, count from its
			// start, so a TTL a script computes from TIME is the TTL the key gets.
			assertThat(after).as("TIME at the end of the script").isEqualTo(before);
			assertThat(remaining).as("PTTL of a key the script wrote").isEqualTo(60_000);
		}
		else {
			// Redis 7.0: each TIME reads the clock, and a key's expiry counts from the command that set it.
			assertThat(after).as("TIME at the end of the script").isGreaterThan(before);
			assertThat(remaining).as("PTTL of a key the script wrote").isLessThan(60_000);
		}
	}

	@Test
	void aScriptTheServerEvictedFromItsCacheRunsAgainOnce() {
		// From Redis 7.4 (and Valkey 8.0) a server evicts scripts that EVAL loaded, least recently used first, once it holds more than
		// 500 of them. redis-kit's scripts come back through EVAL after NOSCRIPT, so other clients' EVALs can evict
		// them: the next call must find out from NOSCRIPT and run exactly once.
		String key = this.redis.unique("evicted");
		RedisServerProcess master = this.redis.masterFor(key);
		ScriptExecutor scripts = ScriptExecutor.of(this.redis.connections());
		byte[] counter = key.getBytes(StandardCharsets.UTF_8);
		assertThat((Long) scripts.execute(COUNTING, ReturnType.INTEGER, 1, counter)).isEqualTo(1L);
		for (int i = 0; i < 600; i++) {
			master.command("EVAL", "return " + i, "0");
		}
		boolean evicted = List.of(0L).equals(master.command("SCRIPT", "EXISTS", COUNTING.sha1()));
		assertThat(evicted).as("the script evicted by 600 other EVALs").isEqualTo(evictsScripts());
		assertThat((Long) scripts.execute(COUNTING, ReturnType.INTEGER, 1, counter)).as("the next call's count")
			.isEqualTo(2L);
	}

	private boolean evictsScripts() {
		// Valkey took the eviction in 8.0 (measured: 8.0.1 evicts, as Redis 8.0.2 does; Redis 7.0.15 keeps them all).
		// atLeast compares the Redis version whose commands a server offers (7.2 for every Valkey); Valkey's own
		// version is version().
		return (servers().engine() == RedisServerBinary.Engine.REDIS) ? servers().atLeast(7, 4)
				: Integer.parseInt(servers().version().split("\\.")[0]) >= 8;
	}

	private RedisServerBinary servers() {
		return this.redis.masters().get(0).binary();
	}

}

package io.rediskit.support;

import java.util.List;

import io.rediskit.testsupport.RedisServerBinary;
import io.rediskit.testsupport.RedisServerProcess;
import io.rediskit.testsupport.Topology;
import io.rediskit.testsupport.TopologyContract;
import org.junit.jupiter.api.Test;

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

	private RedisServerBinary servers() {
		return this.redis.masters().get(0).binary();
	}

}

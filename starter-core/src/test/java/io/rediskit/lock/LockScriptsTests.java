package io.rediskit.lock;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/** The lock's Lua scripts, run directly (acquire) or through {@link LockScripts}, with its argument order. */
class LockScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final LockScripts.Keys KEYS = new LockScripts.Keys("L", "L:fence", "L:released");

	RedisServerProcess server;

	LockScripts scripts;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new LockScripts(redis.scripts(), redis.connections());
	}

	@Test
	void acquireSetsOwnerCountTokenAndLease() {
		List<Object> reply = acquire("a", 10_000, "r1");
		assertThat(reply.get(0)).isEqualTo(1L);
		assertThat(reply.get(2)).isEqualTo(1L);
		long token = (Long) reply.get(1);
		assertThat(this.server.command("HGET", "L", "o")).isEqualTo("a");
		assertThat(this.server.command("HGET", "L", "f")).isEqualTo(Long.toString(token));
		assertThat((Long) this.server.command("PTTL", "L")).isBetween(9_000L, 10_000L);
		assertThat((Long) this.server.command("PTTL", "L:fence")).isGreaterThan(86_000_000L);
		assertThat(this.server.command("GET", "L:fence")).isEqualTo(Long.toString(token));
	}

	@Test
	void sameOwnerReentersAndKeepsItsToken() {
		long token = (Long) acquire("a", 10_000, "r1").get(1);
		List<Object> again = acquire("a", 20_000, "r2");
		assertThat(again).containsExactly(1L, token, 2L);
		assertThat((Long) this.server.command("PTTL", "L")).isGreaterThan(10_000L);
	}

	@Test
	void replayedAcquireChangesNothing() {
		acquire("a", 10_000, "r1", false);
		List<Object> replay = acquire("a", 10_000, "r1", false);
		assertThat(replay.get(2)).isEqualTo(1L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("1");
		acquire("a", 10_000, "r2", true);
		assertThat(acquire("a", 10_000, "r2", true).get(2)).as("replayed re-entry").isEqualTo(2L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("2");
	}

	@Test
	void aReentryNeverTakesALockItsOwnerDoesNotHold() {
		assertThat(acquire("a", 10_000, "r1", true)).as("free: the hold was lost").containsExactly(0L, -2L);
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
		assertThat(this.server.command("EXISTS", "L:fence")).isEqualTo(0L);
		acquire("b", 10_000, "r2", false);
		List<Object> taken = acquire("a", 10_000, "r3", true);
		assertThat(taken.get(0)).isEqualTo(0L);
		assertThat((Long) taken.get(1)).isBetween(1L, 10_000L);
		assertThat(this.server.command("HGET", "L", "o")).isEqualTo("b");
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("1");
	}

	@Test
	void aFirstAcquisitionThatFindsItsOwnOwnerAdoptsOneHold() {
		acquire("a", 10_000, "r1", false);
		acquire("a", 10_000, "r2", true);
		List<Object> adopted = acquire("a", 20_000, "r3", false);
		assertThat(adopted.get(2)).isEqualTo(1L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("1");
		assertThat((Long) this.server.command("PTTL", "L")).isGreaterThan(10_000L);
	}

	@Test
	void theLastReleaseHandsTheLockToTheNextOwnerWithANewToken() {
		long first = (Long) acquire("a", 10_000, "r1").get(1);
		acquire("a", 10_000, "r2");
		assertThat(release("a", "x1")).as("not the last hold: nothing handed").isEqualTo(1L);
		long handed = handOff("a", "b");
		assertThat(handed).isGreaterThan(first);
		assertThat(this.server.command("HGET", "L", "o")).isEqualTo("b");
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("1");
		assertThat(this.server.command("HGET", "L", "f")).isEqualTo(Long.toString(handed));
		assertThat(this.server.command("GET", "L:fence")).isEqualTo(Long.toString(handed));
		assertThat((Long) this.server.command("PTTL", "L")).isBetween(1L, 5_000L);
		assertThat(handOff("a", "c")).as("the old owner has nothing left").isEqualTo(-1L);
		assertThat(this.server.command("HGET", "L", "o")).isEqualTo("b");
		// The new owner's own attempt, racing the hand-off, adopts it without a second hold.
		assertThat(acquire("b", 5_000, "r3", false)).containsExactly(1L, handed, 1L);
		assertThat(release("b", "x4")).isZero();
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
	}

	@Test
	void otherOwnerGetsTheRemainingLease() {
		acquire("a", 10_000, "r1");
		List<Object> reply = acquire("b", 10_000, "r2");
		assertThat(reply.get(0)).isEqualTo(0L);
		assertThat((Long) reply.get(1)).isBetween(1L, 10_000L);
		assertThat(this.server.command("HGET", "L", "o")).isEqualTo("a");
	}

	@Test
	void tokensIncreaseAcrossOwnersAndSurviveALostFenceKey() {
		long first = (Long) acquire("a", 10_000, "r1").get(1);
		release("a", "r2");
		long second = (Long) acquire("b", 10_000, "r3").get(1);
		assertThat(second).isGreaterThan(first);
		release("b", "r4");
		// A token far in the future (as after a server clock that jumped back): the next is one more.
		this.server.command("SET", "L:fence", "9000000000000000");
		assertThat((Long) acquire("c", 10_000, "r5").get(1)).isEqualTo(9000000000000001L);
		release("c", "r6");
		// Without the fencing key the server clock in microseconds is the floor.
		this.server.command("DEL", "L:fence");
		long serverMicros = serverMicros();
		long fromClock = (Long) acquire("d", 10_000, "r7").get(1);
		assertThat(fromClock).isGreaterThanOrEqualTo(serverMicros).isGreaterThan(second);
	}

	@Test
	void releaseChecksTheOwnerDecrementsAndDeletesAtZero() {
		acquire("a", 10_000, "r1");
		acquire("a", 10_000, "r2");
		assertThat(release("b", "x1")).isEqualTo(-1L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("2");
		assertThat(release("a", "x2")).isEqualTo(1L);
		assertThat(release("a", "x2")).as("replayed release").isEqualTo(1L);
		assertThat(release("a", "x3")).isEqualTo(0L);
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
		assertThat(release("a", "x4")).isEqualTo(-1L);
	}

	@Test
	void releasePublishesWhenTheLockBecomesFree() throws Exception {
		acquire("a", 10_000, "r1");
		try (var socket = new java.net.Socket(this.server.host(), this.server.port())) {
			socket.setSoTimeout(5000);
			var out = socket.getOutputStream();
			out.write("SUBSCRIBE L:released\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			for (int i = 0; i < 6; i++) {
				in.readLine(); // *3 $9 subscribe $n channel :1
			}
			assertThat(releaseLast("a")).isEqualTo(0L);
			StringBuilder message = new StringBuilder();
			for (int i = 0; i < 7; i++) {
				message.append(in.readLine()).append('|');
			}
			assertThat(message.toString()).contains("message|").contains("L:released|").endsWith("1|");
		}
	}

	@Test
	void undoRemovesOnlyTheNamedAcquisition() {
		acquire("a", 10_000, "r1");
		acquire("a", 10_000, "r2");
		assertThat(undo("a", "r1")).as("r1 is no longer the last acquisition").isEqualTo(-2L);
		assertThat(undo("a", "r2")).isEqualTo(1L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("1");
		this.server.command("DEL", "L");
		acquire("a", 10_000, "r3");
		assertThat(undo("a", "r3")).isEqualTo(0L);
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
		assertThat(undo("a", "never")).isEqualTo(-1L);
	}

	@Test
	void theClientsLastHoldReleasesTheLockWhateverTheStoredCount() {
		acquire("a", 10_000, "r1");
		// A re-entry whose reply was lost and whose undo failed: the stored count is one too high.
		acquire("a", 10_000, "r2");
		assertThat(releaseLast("b")).as("another owner").isEqualTo(-1L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("2");
		assertThat(releaseLast("a")).isEqualTo(0L);
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
		assertThat(releaseLast("a")).as("replayed").isEqualTo(-1L);
	}

	@Test
	void aReplayedUndoUndoesNothing() {
		acquire("a", 10_000, "r1");
		acquire("a", 10_000, "r2");
		acquire("a", 10_000, "r3");
		assertThat(undo("a", "r3")).isEqualTo(2L);
		assertThat(undo("a", "r3")).as("replayed undo").isEqualTo(-2L);
		assertThat(this.server.command("HGET", "L", "c")).isEqualTo("2");
	}

	@Test
	void renewExtendsOnlyTheOwnersLeaseAndNeverRevives() {
		acquire("a", 1_000, "r1");
		assertThat(renew("b", 50_000)).isFalse();
		assertThat((Long) this.server.command("PTTL", "L")).isLessThanOrEqualTo(1_000L);
		assertThat(renew("a", 50_000)).isTrue();
		assertThat((Long) this.server.command("PTTL", "L")).isGreaterThan(40_000L);
		this.server.command("DEL", "L");
		assertThat(renew("a", 50_000)).isFalse();
		assertThat(this.server.command("EXISTS", "L")).isEqualTo(0L);
	}

	private long serverMicros() {
		@SuppressWarnings("unchecked")
		List<String> time = (List<String>) this.server.command("TIME");
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	/** A first acquisition, or a re-entry when the owner already holds the lock. */
	private List<Object> acquire(String owner, long leaseMillis, String requestId) {
		boolean reentry = owner.equals(this.server.command("HGET", "L", "o"));
		return acquire(owner, leaseMillis, requestId, reentry);
	}

	private static List<Object> acquire(String owner, long leaseMillis, String requestId, boolean reentry) {
		if (reentry) {
			return redis.scripts().execute(LockScripts.REENTER, ReturnType.MULTI, 1, b("L"), b(owner),
					b(Long.toString(leaseMillis)), b(requestId));
		}
		return redis.scripts().execute(LockScripts.ACQUIRE, ReturnType.MULTI, 2, b("L"), b("L:fence"), b(owner),
				b(Long.toString(leaseMillis)), b(requestId), b("86400000"));
	}

	private long release(String owner, String requestId) {
		return LockScripts.await(this.scripts.release(KEYS, owner, 10_000, requestId));
	}

	private long releaseLast(String owner) {
		return LockScripts.await(this.scripts.releaseLast(KEYS, owner));
	}

	private long handOff(String owner, String nextOwner) {
		return LockScripts.await(this.scripts.handOff(KEYS, owner, nextOwner, 5_000, "h1"));
	}

	private long undo(String owner, String requestId) {
		return LockScripts.await(this.scripts.undo(KEYS, owner, 10_000, requestId));
	}

	private boolean renew(String owner, long leaseMillis) {
		return LockScripts.await(this.scripts.renew(KEYS, owner, leaseMillis));
	}

	private static byte[] b(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Numbers are encoded once and shared: whatever values follow one another, including ones that take each
	 * other's slot, each call gets its own value's digits.
	 */
	@Test
	void numbersAreEncodedOnceAndNeverConfused() {
		long[] values = { 0, 1, 255, 256, 30_000, 30_000 + 16, 30_000 + 32, -1, Long.MAX_VALUE, Long.MIN_VALUE,
				86_400_000, 1L << 32, (1L << 32) + 16 };
		for (int round = 0; round < 3; round++) {
			for (long value : values) {
				assertThat(new String(LockScripts.number(value), StandardCharsets.US_ASCII))
					.isEqualTo(Long.toString(value));
			}
		}
		assertThat(LockScripts.number(7)).as("a small number, from the table").isSameAs(LockScripts.number(7));
	}

}

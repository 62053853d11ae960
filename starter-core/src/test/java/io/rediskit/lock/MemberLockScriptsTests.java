package io.rediskit.lock;

import java.util.List;

import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read-write and fair locks' scripts run directly through their script classes: replies, a TTL on every key
 * they write, writer preference, a replay that changes nothing, and the wake-up each release publishes.
 */
class MemberLockScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final KeyNaming NAMING = KeyNaming.defaults();

	RedisServerProcess server;

	ReadWriteLockScripts readWrite;

	FairLockScripts fair;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.readWrite = new ReadWriteLockScripts(redis.scripts(), NAMING);
		this.fair = new FairLockScripts(redis.scripts(), NAMING);
	}

	@Test
	void readersShareEveryKeyHasATtlAndAWaitingWriterKeepsNewReadersOut() {
		assertThat(LockScripts.await(this.readWrite.acquireRead("p", "r1", 10_000)).acquired()).isTrue();
		assertThat(LockScripts.await(this.readWrite.acquireRead("p", "r2", 20_000)).acquired()).isTrue();
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p"))).isBetween(19_000L, 20_000L);
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "readers"))).isBetween(19_000L, 20_000L);
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "fence"))).isGreaterThan(86_000_000L);
		LockScripts.Attempt writer = LockScripts.await(this.readWrite.acquireWrite("p", "w", 10_000, 3_000));
		assertThat(writer.acquired()).isFalse();
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "writers"))).isBetween(2_000L, 3_000L);
		assertThat(LockScripts.await(this.readWrite.acquireRead("p", "r3", 10_000)).acquired())
			.as("a new reader while a writer waits").isFalse();
		assertThat(LockScripts.await(this.readWrite.setCount("p", true, "r1", 0, 10_000))).isZero();
		assertThat(LockScripts.await(this.readWrite.setCount("p", true, "r1", 0, 10_000))).as("a replay").isEqualTo(-1);
		assertThat(LockScripts.await(this.readWrite.setCount("p", true, "r2", 0, 10_000))).isZero();
		LockScripts.Attempt written = LockScripts.await(this.readWrite.acquireWrite("p", "w", 10_000, 3_000));
		assertThat(written.acquired()).isTrue();
		assertThat(this.server.command("ZCARD", NAMING.key("rwlock", "p", "writers"))).isEqualTo(0L);
		assertThat(LockScripts.await(this.readWrite.acquireRead("p", "w", 10_000)).acquired())
			.as("the writer reads: a downgrade").isTrue();
		assertThat(LockScripts.await(this.readWrite.setCount("p", false, "w", 0, 10_000))).isZero();
		assertThat(LockScripts.await(this.readWrite.holders("p", "w")))
			.isEqualTo(new ReadWriteLockScripts.Holders(false, 1, 0, 1));
		assertThat(LockScripts.await(this.readWrite.setCount("p", true, "w", 0, 10_000))).isZero();
		assertThat(this.server.command("EXISTS", NAMING.key("rwlock", "p"), NAMING.key("rwlock", "p", "readers")))
			.isEqualTo(0L);
	}

	@Test
	void aReaderWhoseLeaseEndedIsDroppedAndCannotRenew() throws Exception {
		assertThat(LockScripts.await(this.readWrite.acquireRead("e", "r", 1)).acquired()).isTrue();
		LockTesting.awaitCondition("the lease ended", java.time.Duration.ofSeconds(2),
				() -> !LockScripts.await(this.readWrite.holders("e", "r")).equals(
						new ReadWriteLockScripts.Holders(false, 1, 0, 1)));
		assertThat(LockScripts.await(this.readWrite.renew("e", true, "r", 10_000))).isFalse();
		assertThat(LockScripts.await(this.readWrite.acquireWrite("e", "w", 10_000, 3_000)).acquired()).isTrue();
	}

	@Test
	void theFairLineKeepsArrivalOrderTtlsAndLetsTheFirstInLineOnly() {
		LockScripts.Keys keys = FairLockScripts.keys(NAMING, "f", "f");
		assertThat(LockScripts.await(this.fair.acquire(keys, "h", 10_000, "1", 3_000)).acquired()).isTrue();
		assertThat(LockScripts.await(this.fair.acquire(keys, "a", 10_000, "2", 3_000)).acquired()).isFalse();
		assertThat(LockScripts.await(this.fair.acquire(keys, "b", 10_000, "3", 3_000)).acquired()).isFalse();
		assertThat(LockScripts.await(this.fair.acquire(keys, "a", 10_000, "4", 3_000)).acquired())
			.as("a renewal keeps the place").isFalse();
		assertThat(this.server.command("ZRANGE", NAMING.key("fairlock", "f", "line"), "0", "-1"))
			.isEqualTo(List.of("a", "b"));
		assertThat((Long) this.server.command("PTTL", NAMING.key("fairlock", "f", "line"))).isBetween(2_000L, 3_000L);
		assertThat((Long) this.server.command("PTTL", NAMING.key("fairlock", "f", "places"))).isBetween(2_000L, 3_000L);
		assertThat(LockScripts.await(this.fair.releaseLast(keys, "h"))).isZero();
		assertThat(LockScripts.await(this.fair.releaseLast(keys, "h"))).as("a replay").isEqualTo(-1);
		assertThat(LockScripts.await(this.fair.acquire(keys, "b", 10_000, "5", 3_000)).acquired())
			.as("the second in line").isFalse();
		assertThat(LockScripts.await(this.fair.acquire(keys, "c", 10_000, "6", 3_000)).acquired())
			.as("a newcomer").isFalse();
		assertThat(LockScripts.await(this.fair.acquire(keys, "a", 10_000, "7", 3_000)).acquired())
			.as("the first in line").isTrue();
		assertThat(LockScripts.await(this.fair.leave(keys, "a"))).as("leaving frees what it held").isEqualTo(1);
		assertThat(LockScripts.await(this.fair.leave(keys, "b"))).isZero();
		assertThat(LockScripts.await(this.fair.acquire(keys, "c", 10_000, "8", 3_000)).acquired()).isTrue();
	}

}

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

	private static final byte[] WAIT_3S = LockScripts.number(3_000);

	RedisServerProcess server;

	ReadWriteLockScripts readWrite;

	FairLockScripts fair;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.readWrite = new ReadWriteLockScripts(redis.scripts());
		this.fair = new FairLockScripts(redis.scripts());
	}

	@Test
	void readersShareEveryKeyHasATtlAndAWaitingWriterKeepsNewReadersOut() {
		assertThat(LockScripts.await(this.readWrite.acquireRead(rw("p"), "r1", 10_000)).acquired()).isTrue();
		assertThat(LockScripts.await(this.readWrite.acquireRead(rw("p"), "r2", 20_000)).acquired()).isTrue();
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p"))).isBetween(19_000L, 20_000L);
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "readers"))).isBetween(19_000L, 20_000L);
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "fence"))).isGreaterThan(86_000_000L);
		LockScripts.Attempt writer = LockScripts.await(this.readWrite.acquireWrite(rw("p"), "w", 10_000, WAIT_3S));
		assertThat(writer.acquired()).isFalse();
		assertThat((Long) this.server.command("PTTL", NAMING.key("rwlock", "p", "writers"))).isBetween(2_000L, 3_000L);
		assertThat(LockScripts.await(this.readWrite.acquireRead(rw("p"), "r3", 10_000)).acquired())
			.as("a new reader while a writer waits").isFalse();
		assertThat(LockScripts.await(this.readWrite.setCount(rw("p"), true, "r1", 0, 10_000))).isZero();
		assertThat(LockScripts.await(this.readWrite.setCount(rw("p"), true, "r1", 0, 10_000))).as("a replay").isEqualTo(-1);
		assertThat(LockScripts.await(this.readWrite.setCount(rw("p"), true, "r2", 0, 10_000))).isZero();
		LockScripts.Attempt written = LockScripts.await(this.readWrite.acquireWrite(rw("p"), "w", 10_000, WAIT_3S));
		assertThat(written.acquired()).isTrue();
		assertThat(this.server.command("ZCARD", NAMING.key("rwlock", "p", "writers"))).isEqualTo(0L);
		assertThat(LockScripts.await(this.readWrite.acquireRead(rw("p"), "w", 10_000)).acquired())
			.as("the writer reads: a downgrade").isTrue();
		assertThat(LockScripts.await(this.readWrite.setCount(rw("p"), false, "w", 0, 10_000))).isZero();
		assertThat(LockScripts.await(this.readWrite.holders(rw("p"), "w")))
			.isEqualTo(new ReadWriteLockScripts.Holders(false, 1, 0, 1));
		assertThat(LockScripts.await(this.readWrite.setCount(rw("p"), true, "w", 0, 10_000))).isZero();
		assertThat(this.server.command("EXISTS", NAMING.key("rwlock", "p"), NAMING.key("rwlock", "p", "readers")))
			.isEqualTo(0L);
	}

	@Test
	void aReaderWhoseLeaseEndedIsDroppedAndCannotRenew() throws Exception {
		assertThat(LockScripts.await(this.readWrite.acquireRead(rw("e"), "r", 1)).acquired()).isTrue();
		LockTesting.awaitCondition("the lease ended", java.time.Duration.ofSeconds(2),
				() -> !LockScripts.await(this.readWrite.holders(rw("e"), "r")).equals(
						new ReadWriteLockScripts.Holders(false, 1, 0, 1)));
		assertThat(LockScripts.await(this.readWrite.renew(rw("e"), true, "r", 10_000))).isFalse();
		assertThat(LockScripts.await(this.readWrite.acquireWrite(rw("e"), "w", 10_000, WAIT_3S)).acquired()).isTrue();
	}

	@Test
	void bothSidesOfAReadWriteLockNameEveryKeyOfTheNameOnceAndKeepTheirHoldsApart() {
		LockScripts.Keys write = ReadWriteLockScripts.keys(NAMING, "k", "g", false);
		LockScripts.Keys read = ReadWriteLockScripts.keys(NAMING, "k", "g", true);
		assertThat(write.lock).isEqualTo(NAMING.key("rwlock", "k"));
		assertThat(read.lock).as("the read side's holds are kept apart from the write side's")
			.isEqualTo(NAMING.key("rwlock", "k", "readers"));
		assertThat(ReadWriteLockScripts.readersKey(write)).as("what a writer's upgrade check looks its reads up by")
			.isEqualTo(read.lock);
		for (LockScripts.Keys side : List.of(write, read)) {
			assertThat(side.further).containsExactly(NAMING.key("rwlock", "k"), NAMING.key("rwlock", "k", "readers"),
					NAMING.key("rwlock", "k", "writers"));
			assertThat(side.furtherBytes.length).isEqualTo(3);
			for (int i = 0; i < 3; i++) {
				assertThat(new String(side.furtherBytes[i], java.nio.charset.StandardCharsets.UTF_8))
					.isEqualTo(side.further[i]);
			}
			assertThat(side.fence).isEqualTo(NAMING.key("rwlock", "k", "fence"));
			assertThat(side.released).isEqualTo(NAMING.key("rwlock", "k", "released"));
		}
		LockScripts.Keys fair = FairLockScripts.keys(NAMING, "k", "g");
		assertThat(fair.further).containsExactly(NAMING.key("fairlock", "k", "line"),
				NAMING.key("fairlock", "k", "places"));
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

	/** @return the keys of a read-write lock's name, as its write side's handle has them */
	private static LockScripts.Keys rw(String name) {
		return ReadWriteLockScripts.keys(NAMING, name, name, false);
	}

}

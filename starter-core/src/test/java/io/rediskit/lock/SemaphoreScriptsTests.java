package io.rediskit.lock;

import io.rediskit.support.RedisTestServer;
import io.rediskit.testsupport.RedisServerProcess;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The semaphore's hand-off script run through {@link SemaphoreScripts}: the freed permits go to the next owner
 * in the same call only when they cover what it asked for (and a run-time total allows it), an owner that holds
 * nothing hands nothing over, and a next owner that took its permits itself keeps its own token.
 */
class SemaphoreScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final LockScripts.Keys KEYS = new LockScripts.Keys("S", "S:state", "S:released");

	RedisServerProcess server;

	SemaphoreScripts scripts;

	@BeforeEach
	void clean() {
		redis.flushAll();
		this.server = redis.server();
		this.scripts = new SemaphoreScripts(redis.scripts());
	}

	@Test
	void theFreedPermitsGoToTheNextOwnerWithANewToken() {
		SemaphoreScripts.Attempt first = acquire("a", 2, 3);
		acquire("b", 1, 3);
		long handed = handOff("a", "c", 2);
		assertThat(handed).isGreaterThan(first.fencingToken());
		assertThat(this.server.command("ZSCORE", "S", "a")).as("the old owner is gone").isNull();
		assertThat(this.server.command("HGET", "S:state", "c")).isEqualTo("2:" + handed);
		assertThat(this.server.command("HGET", "S:state", "f")).isEqualTo(Long.toString(handed));
		assertThat(acquire("d", 1, 3).state()).as("still three held of three")
			.isEqualTo(SemaphoreScripts.Attempt.State.BUSY);
		assertThat(acquire("c", 2, 3).fencingToken()).as("a replay of the next owner").isEqualTo(handed);
	}

	@Test
	void permitsThatDoNotCoverTheNextOwnerAreReleasedToEveryone() {
		acquire("a", 1, 3);
		assertThat(handOff("a", "c", 2)).isZero();
		assertThat(this.server.command("ZSCORE", "S", "c")).isNull();
		assertThat(this.server.command("EXISTS", "S")).as("nobody holds").isEqualTo(0L);
		assertThat(acquire("d", 3, 3).state()).isEqualTo(SemaphoreScripts.Attempt.State.ACQUIRED);
	}

	@Test
	void aTotalLoweredAtRunTimeIsRespected() {
		acquire("a", 1, 3);
		acquire("b", 2, 3);
		LockScripts.await(this.scripts.setTotal(KEYS, 2));
		assertThat(handOff("a", "c", 1)).as("b's two fill the new total").isZero();
		assertThat(this.server.command("ZSCORE", "S", "c")).isNull();
	}

	@Test
	void anOwnerThatHoldsNothingHandsNothingOver() {
		assertThat(handOff("a", "c", 1)).isEqualTo(-1L);
		assertThat(this.server.command("EXISTS", "S")).isEqualTo(0L);
		acquire("a", 1, 3);
		assertThat(handOff("a", "c", 1)).isPositive();
		assertThat(handOff("a", "d", 1)).as("a replayed hand-off").isEqualTo(-1L);
		assertThat(this.server.command("ZSCORE", "S", "d")).isNull();
	}

	@Test
	void aNextOwnerThatHoldsAlreadyKeepsItsToken() {
		acquire("a", 1, 3);
		SemaphoreScripts.Attempt own = acquire("c", 1, 3);
		assertThat(handOff("a", "c", 1)).isEqualTo(own.fencingToken());
		assertThat(this.server.command("HGET", "S:state", "c")).isEqualTo("1:" + own.fencingToken());
		assertThat(this.server.command("ZCARD", "S")).as("a's permit was released, not handed").isEqualTo(1L);
	}

	private SemaphoreScripts.Attempt acquire(String owner, int permits, int total) {
		return LockScripts.await(this.scripts.acquire(KEYS, owner, permits, 10_000, total));
	}

	private long handOff(String owner, String nextOwner, int permits) {
		return LockScripts.await(this.scripts.handOff(KEYS, owner, nextOwner, permits, 10_000));
	}

}

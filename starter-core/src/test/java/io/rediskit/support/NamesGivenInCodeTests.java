package io.rediskit.support;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.rediskit.latch.LatchRegistry;
import io.rediskit.latch.LatchSpec;
import io.rediskit.leader.LeaderElections;
import io.rediskit.lock.FairLockRegistry;
import io.rediskit.lock.Lease;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.ReadWriteLockRegistry;
import io.rediskit.lock.SemaphoreRegistry;
import io.rediskit.lock.WaiterLineSpec;
import io.rediskit.queue.QueueEntry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The rule of names given in code ({@link Names#requireData}), the same at every entry point that makes a primitive
 * no property configures: a name may be data (an order id, an e-mail address), so {@code .}, {@code :}, braces and
 * any printable character are accepted, and only an empty name, one over 128 characters or one with a control
 * character is refused, with a message that does not repeat it.
 */
class NamesGivenInCodeTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static LockRegistry locks;

	static FairLockRegistry fairLocks;

	static ReadWriteLockRegistry readWriteLocks;

	static SemaphoreRegistry semaphores;

	static LatchRegistry latches;

	@BeforeAll
	static void registries() {
		ScriptExecutor scripts = redis.scripts();
		locks = new LockRegistry(scripts, redis.connections(), KeyNaming.defaults(), LockSpec.defaults(), List.of(),
				Clock.systemUTC());
		fairLocks = new FairLockRegistry(scripts, redis.connections(), KeyNaming.defaults(), WaiterLineSpec.defaults(),
				List.of(), Clock.systemUTC());
		readWriteLocks = new ReadWriteLockRegistry(scripts, redis.connections(), KeyNaming.defaults(),
				WaiterLineSpec.defaults(), List.of(), Clock.systemUTC());
		semaphores = new SemaphoreRegistry(scripts, redis.connections(), KeyNaming.defaults(), LockSpec.defaults(),
				List.of(), Clock.systemUTC());
		latches = new LatchRegistry(scripts, redis.connections(), KeyNaming.defaults(), LatchSpec.defaults(), List.of());
	}

	@AfterAll
	static void close() {
		locks.close();
		fairLocks.close();
		readWriteLocks.close();
		semaphores.close();
		latches.close();
	}

	/** Every entry point that takes a name given in code, by what its message calls the name. */
	static Map<String, Consumer<String>> entryPoints() {
		return Map.ofEntries(Map.entry("lock", (name) -> locks.getLock(name)),
				Map.entry("lock group", (name) -> locks.getLock(name, "42")),
				Map.entry("job lock", (name) -> locks.getJobLock(name)),
				Map.entry("multi-lock", (name) -> locks.getMultiLock("other", name)),
				Map.entry("fair lock", (name) -> fairLocks.getLock(name)),
				Map.entry("read-write lock", (name) -> readWriteLocks.getReadWriteLock(name)),
				Map.entry("read-write lock group", (name) -> readWriteLocks.getReadWriteLock(name, "42")),
				Map.entry("semaphore", (name) -> semaphores.getSemaphore(name, 2)),
				Map.entry("semaphore group", (name) -> semaphores.getSemaphore(name, "42", 2)),
				Map.entry("latch", (name) -> latches.getCountDownLatch(name)),
				Map.entry("latch count", (name) -> latches.count(name)),
				Map.entry("queue message group", (name) -> QueueEntry.of("payload").withGroup(name)));
	}

	@Test
	void anEmptyOverLongOrControlNameIsRefusedAtEveryEntryPointWithoutBeingRepeated() {
		List<String> refused = List.of("", "secret-" + "x".repeat(Names.MAX_DATA_LENGTH - 6), "secret\n42",
				"secret\u0000", "secret\u007f");
		entryPoints().forEach((entryPoint, call) -> {
			for (String name : refused) {
				assertThatIllegalArgumentException().as(entryPoint).isThrownBy(() -> call.accept(name))
					.withMessageContaining(" name must be " + Names.DATA_RULE)
					.withMessageNotContaining("secret");
			}
		});
	}

	@Test
	void dataSuchAsIdsAddressesAndBracesIsAName() {
		// What applications pass: ids with ':' and '.', addresses, braces, unicode, spaces, the longest allowed.
		List<String> accepted = List.of("orders:42", "a.b", "user@example.com", "{tenant}", "}{", "ä 日本 \uD83D\uDE00",
				"x".repeat(Names.MAX_DATA_LENGTH));
		entryPoints().forEach((entryPoint, call) -> accepted.forEach((name) -> call.accept(name)));
		for (String name : accepted) {
			try (Lease lease = locks.getLock(name).acquire(Duration.ofSeconds(5))) {
				assertThat(lease.fencingToken()).isPositive();
			}
			try (Lease lease = semaphores.getSemaphore(name, 2).acquire(1, Duration.ofSeconds(5))) {
				assertThat(semaphores.permits(name, 2).held()).isEqualTo(1);
			}
			assertThat(latches.getCountDownLatch(name).trySetCount(1)).isTrue();
			assertThat(latches.count(name)).isEqualTo(1);
		}
	}

	@Test
	void bracesInANameStayInsideItsHashTag() {
		KeyNaming naming = KeyNaming.defaults();
		try (Lease lease = locks.getLock("}{tenant}").acquire(Duration.ofSeconds(5));
				RedisConnection connection = redis.connections().getConnection()) {
			String fence = naming.key("lock", "}{tenant}", "fence");
			assertThat(fence).isEqualTo("rk:lock:{%7D%7Btenant%7D}:fence");
			assertThat(connection.keyCommands().exists(fence.getBytes())).isTrue();
			assertThat(ClusterSlotHashUtil.calculateSlot(fence))
				.isEqualTo(ClusterSlotHashUtil.calculateSlot(naming.key("lock", "}{tenant}")))
				.isNotEqualTo(ClusterSlotHashUtil.calculateSlot(naming.key("lock", "tenant")));
		}
	}

	@Test
	void theKeyOfAGroupIsDataOfAnyLength() {
		String key = "k\n" + "y".repeat(10_000);
		try (Lease lease = locks.getLock("orders", key).acquire(Duration.ofSeconds(5))) {
			assertThat(lease.fencingToken()).isPositive();
		}
		try (Lease lease = semaphores.getSemaphore("exports", key, 2).acquire(1, Duration.ofSeconds(5))) {
			// What the console asks of a name another instance reports, group and key together.
			assertThat(semaphores.permits("exports:" + key, 2).held()).isEqualTo(1);
		}
	}

	@Test
	void aLeaderRoleGivenInCodeFollowsTheRuleOfConfiguredRoles() {
		LeaderElections elections = new LeaderElections(locks, List.of());
		for (String role : List.of("secret.billing", "secret:billing", "", "secret-" + "x".repeat(64))) {
			assertThatIllegalArgumentException().isThrownBy(() -> elections.elect(role))
				.withMessageContaining("Leader role name must be " + Names.RULE)
				.withMessageNotContaining("secret");
		}
		assertThat(elections.elect("billing-scheduler").role()).isEqualTo("billing-scheduler");
	}

}

package io.rediskit.instance;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import io.rediskit.support.Background;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Two instances on one real redis-server: each sees the other with what it runs and holds; a silenced one (the
 * heartbeat stopped without leaving, as after {@code kill -9}) is shown gone, and its holds vanish when their
 * leases end; a clean close forgets the instance at once.
 */
class InstanceRegistryTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	static final Instant SINCE = Instant.ofEpochMilli(1_700_000_000_123L);

	static final String HOSTILE = "<img src=x onerror=alert(1)>\n hold x 1 1 x\t%zz";

	private final Background background = Background.standalone("instance-tests");

	private final AtomicReference<InstanceReport> reportOfB = new AtomicReference<>(InstanceReport.EMPTY);

	private InstanceRegistry a;

	private InstanceRegistry b;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.a = registry(new InstanceInfo("a-id", "billing", "host-a", 11, "1.0", Instant.ofEpochSecond(1)),
				() -> new InstanceReport(List.of("queue:orders"), List.of()));
		this.b = registry(new InstanceInfo("b-id", HOSTILE, "host-b", 22, "1.1", Instant.ofEpochSecond(2)),
				this.reportOfB::get);
	}

	@AfterEach
	void tearDown() {
		this.a.close();
		this.b.close();
		this.background.close();
	}

	private InstanceRegistry registry(InstanceInfo info, java.util.function.Supplier<InstanceReport> report) {
		return new InstanceRegistry(redis.scripts(), KeyNaming.defaults(), info, Duration.ofSeconds(1),
				Duration.ofMinutes(1), report, this.background);
	}

	@Test
	void eachInstanceSeesTheOtherWithWhatItRunsAndHolds() {
		this.reportOfB.set(new InstanceReport(List.of("job:" + HOSTILE),
				List.of(new InstanceHold("single", HOSTILE, 42, Duration.ofMinutes(5), "lease", SINCE)),
				List.of(new InstanceLeadership(HOSTILE, 7, SINCE))));
		this.a.beatNow();
		this.b.beatNow();
		List<ListedInstance> listed = this.a.list();
		assertThat(listed).extracting((instance) -> instance.info().id()).containsExactlyInAnyOrder("a-id", "b-id");
		ListedInstance b = find(listed, "b-id").orElseThrow();
		assertThat(b.alive()).isTrue();
		assertThat(b.info()).isEqualTo(this.b.self());
		assertThat(b.info().displayName()).isEqualTo(HOSTILE + "@host-b:22");
		assertThat(b.runs()).containsExactly("job:" + HOSTILE);
		assertThat(b.holds()).singleElement().satisfies((hold) -> {
			assertThat(hold.name()).isEqualTo(HOSTILE);
			assertThat(hold.kind()).isEqualTo("single");
			assertThat(hold.fencingToken()).isEqualTo(42);
			assertThat(hold.owner()).isEqualTo("lease");
			assertThat(hold.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(5));
			assertThat(hold.heldSince()).isEqualTo(SINCE);
		});
		assertThat(b.leads()).containsExactly(new InstanceLeadership(HOSTILE, 7, SINCE));
		assertThat(find(listed, "a-id").orElseThrow().runs()).containsExactly("queue:orders");
	}

	@Test
	void eachInstanceSeesTheSemaphoresLatchesAndCachesTheOtherUsesNamesAsData() {
		List<InstanceSemaphore> semaphores = new java.util.ArrayList<>();
		List<String> caches = new java.util.ArrayList<>(List.of(HOSTILE));
		semaphores.add(new InstanceSemaphore(HOSTILE + " with spaces\nand a line", 3));
		for (int i = 0; i < InstanceRegistry.MAX_NAMES + 5; i++) {
			semaphores.add(new InstanceSemaphore("pool-" + i, 1));
			caches.add("cache-" + i);
		}
		this.reportOfB.set(new InstanceReport(List.of(), List.of(), List.of(), semaphores, List.of(HOSTILE, "gate"),
				caches));
		this.b.beatNow();
		ListedInstance b = find(this.a.list(), "b-id").orElseThrow();
		assertThat(b.semaphores()).hasSize(InstanceRegistry.MAX_NAMES);
		assertThat(b.semaphores().get(0)).isEqualTo(new InstanceSemaphore(HOSTILE + " with spaces\nand a line", 3));
		assertThat(b.latches()).containsExactly(HOSTILE, "gate");
		assertThat(b.caches()).hasSize(InstanceRegistry.MAX_NAMES).startsWith(HOSTILE, "cache-0");
	}

	@Test
	void aRecordOfAnotherVersionIsReadWithTheLinesItKnows() {
		// An older version's record names no semaphore, latch or cache; a later one's may carry lines this one does
		// not know.
		String older = "id a-id\napplication alpha\nhost h\npid 1\nversion 1\nstarted 0\nrun queue%3Aorders\n";
		ListedInstance read = InstanceRegistry.decode(older + "future-line x y z\n", 1000, 1000, 3000);
		assertThat(read).isNotNull();
		assertThat(read.runs()).containsExactly("queue:orders");
		assertThat(read.semaphores()).isEmpty();
		assertThat(read.latches()).isEmpty();
		assertThat(read.caches()).isEmpty();
		// This version's record, read by itself.
		String encoded = InstanceRegistry.encode(new InstanceInfo("b-id", "bravo", "h", 2, "2", Instant.EPOCH),
				new InstanceReport(List.of(), List.of(), List.of(), List.of(new InstanceSemaphore("pool", 3)),
						List.of("gate"), List.of("orders")));
		ListedInstance again = InstanceRegistry.decode(encoded, 1000, 1000, 3000);
		assertThat(again.semaphores()).containsExactly(new InstanceSemaphore("pool", 3));
		assertThat(again.latches()).containsExactly("gate");
		assertThat(again.caches()).containsExactly("orders");
	}

	@Test
	void aSilencedInstanceIsShownGoneAndItsHoldsVanishWhenTheirLeasesEnd() {
		this.reportOfB.set(new InstanceReport(List.of(),
				List.of(new InstanceHold("single", "short", 1, Duration.ofSeconds(2), "lease", SINCE),
						new InstanceHold("semaphore", "long", 2, Duration.ofHours(1), "thread:7", SINCE))));
		this.a.start();
		this.b.start();
		await("b listed alive", () -> find(this.a.list(), "b-id").map(ListedInstance::alive).orElse(false));
		// What kill -9 leaves: no more heartbeats, the entry still there.
		this.b.stop();
		await("the short hold's lease ended", () -> find(this.a.list(), "b-id").orElseThrow().holds().size() == 1);
		assertThat(find(this.a.list(), "b-id").orElseThrow().holds()).extracting(InstanceHold::name)
			.containsExactly("long");
		await("b shown gone", () -> !find(this.a.list(), "b-id").orElseThrow().alive());
		ListedInstance gone = find(this.a.list(), "b-id").orElseThrow();
		assertThat(gone.sinceHeartbeat()).isGreaterThanOrEqualTo(this.b.goneAfter());
		assertThat(find(this.a.list(), "a-id").orElseThrow().alive()).isTrue();
	}

	@Test
	void aCleanCloseForgetsTheInstanceAtOnce() {
		this.a.beatNow();
		this.b.beatNow();
		this.b.close();
		assertThat(this.a.list()).extracting((instance) -> instance.info().id()).containsExactly("a-id");
	}

	@Test
	void aReportIsBounded() {
		List<InstanceHold> holds = new java.util.ArrayList<>();
		for (int i = 0; i < InstanceRegistry.MAX_HOLDS + 7; i++) {
			holds.add(new InstanceHold("single", "lock-" + i, i, Duration.ofMinutes(1), "lease", SINCE));
		}
		this.reportOfB.set(new InstanceReport(List.of(), holds));
		this.b.beatNow();
		ListedInstance b = find(this.a.list(), "b-id").orElseThrow();
		assertThat(b.holds()).hasSize(InstanceRegistry.MAX_HOLDS);
		assertThat(b.heldOmitted()).isEqualTo(7);
	}

	@Test
	void aFailingReportStillSaysTheInstanceLives() {
		InstanceRegistry failing = registry(new InstanceInfo("c-id", "c", "h", 3, "1", Instant.EPOCH), () -> {
			throw new IllegalStateException("boom");
		});
		failing.beatNow();
		assertThat(find(this.a.list(), "c-id")).hasValueSatisfying((c) -> assertThat(c.holds()).isEmpty());
		failing.close();
	}

	@Test
	void anIntervalOrRetentionTooShortIsRejected() {
		InstanceInfo info = InstanceInfo.current("app", "1");
		assertThatIllegalArgumentException().isThrownBy(() -> new InstanceRegistry(redis.scripts(),
				KeyNaming.defaults(), info, Duration.ofMillis(500), Duration.ofMinutes(1), () -> InstanceReport.EMPTY,
				this.background));
		assertThatIllegalArgumentException().isThrownBy(() -> new InstanceRegistry(redis.scripts(),
				KeyNaming.defaults(), info, Duration.ofSeconds(5), Duration.ofSeconds(10), () -> InstanceReport.EMPTY,
				this.background));
	}

	private static Optional<ListedInstance> find(List<ListedInstance> listed, String id) {
		return listed.stream().filter((instance) -> instance.info().id().equals(id)).findFirst();
	}

	// Waits for what the heartbeat and the server's clock guarantee; the deadline only stops a broken run.
	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Timed out waiting for " + what);
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError(ex);
			}
		}
	}

}

package io.rediskit.autoconfigure.lock;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.lock.LockListener;

/**
 * Records lock events as Micrometer meters. The {@code lock} tag is the lock group's name (never a per-call
 * key), so cardinality stays bounded; the {@code kind} tag tells the single-node lock ({@code single}) from Redlock
 * ({@code redlock}). The timers of waits and holds ({@code rediskit.lock.acquire}, {@code rediskit.lock.held})
 * come from the observations, through {@link MicrometerLockMeters}; this listener counts the events:
 * <ul>
 * <li>{@code rediskit.lock.renewals} (counter; {@code lock}, {@code kind}, {@code result} = renewed | lost | error): watchdog
 * lease renewals.</li>
 * <li>{@code rediskit.lock.lost} (counter; {@code lock}, {@code kind}): holds lost before their release.</li>
 * <li>{@code rediskit.lock.release.failures} (counter; {@code lock}, {@code kind}): last releases that could not
 * reach Redis; the lease ends those holds.</li>
 * <li>{@code rediskit.lock.replica.shortfalls} (counter; {@code lock}, {@code kind}): acquisitions and renewals that fewer
 * replicas acknowledged than {@code redis-kit.lock.replica-wait.replicas} requires, and that stood.</li>
 * </ul>
 * The other members of the lock family record the same meters under their own name ({@link #forMember}):
 * {@code rediskit.lock.readwrite.*} (read-write locks; the {@code lock} tag is the lock's name for both sides) and
 * {@code rediskit.lock.fair.*} (fair locks).

 */
public class MicrometerLockListener implements LockListener {

	/** The {@code kind} tag of the single-node lock's meters. */
	public static final String KIND_SINGLE = "single";

	/** The {@code kind} tag of Redlock's meters. */
	public static final String KIND_REDLOCK = "redlock";

	private final MeterRegistry registry;

	private final String kind;

	private final String prefix;

	private final Map<String, Counter> renewalCounters = new ConcurrentHashMap<>();

	private final Map<String, Counter> lostCounters = new ConcurrentHashMap<>();

	private final Map<String, Counter> shortfallCounters = new ConcurrentHashMap<>();

	private final Map<String, Counter> releaseFailureCounters = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLockListener(MeterRegistry registry) {
		this(registry, KIND_SINGLE);
	}

	/**
	 * @param registry where the meters go
	 * @param kind the {@code kind} tag of every meter
	 */
	public MicrometerLockListener(MeterRegistry registry, String kind) {
		this(registry, kind, "rediskit.lock");
	}

	private MicrometerLockListener(MeterRegistry registry, String kind, String prefix) {
		this.registry = registry;
		this.kind = kind;
		this.prefix = prefix;
	}

	/**
	 * @param kind the {@code kind} tag
	 * @return a listener recording to the same registry with that tag
	 */
	public MicrometerLockListener forKind(String kind) {
		return new MicrometerLockListener(this.registry, kind, this.prefix);
	}

	/**
	 * A listener for another member of the lock family, whose meters are the same under its own name:
	 * {@code rediskit.lock.<member>.renewals}, {@code .lost}, {@code .release.failures},
	 * {@code .replica.shortfalls}, each with the {@code kind} tag {@code single}.
	 * @param member the member's property group under {@code redis-kit.lock} without its dashes, such as
	 * {@code readwrite} or {@code fair}
	 * @return a listener recording to the same registry under {@code rediskit.lock.<member>}
	 */
	public MicrometerLockListener forMember(String member) {
		return new MicrometerLockListener(this.registry, KIND_SINGLE, "rediskit.lock." + member);
	}

	@Override
	public void onRenewal(String lockName, RenewalResult result) {
		String outcome = tagValue(result);
		this.renewalCounters.computeIfAbsent(lockName + '\0' + outcome, (key) -> Counter.builder(this.prefix + ".renewals")
			.description("Watchdog renewals of distributed lock leases, by outcome")
			.tag("lock", lockName)
			.tag("kind", this.kind)
			.tag("result", outcome)
			.register(this.registry)).increment();
	}

	@Override
	public void onLeaseLost(String lockName, long fencingToken) {
		this.lostCounters.computeIfAbsent(lockName, (key) -> Counter.builder(this.prefix + ".lost")
			.description("Distributed lock holds lost before their release (lease ended or taken over)")
			.tag("lock", lockName)
			.tag("kind", this.kind)
			.register(this.registry)).increment();
	}

	@Override
	public void onReleaseFailed(String lockName) {
		this.releaseFailureCounters.computeIfAbsent(lockName, (key) -> Counter.builder(this.prefix + ".release.failures")
			.description("Distributed lock releases that could not reach Redis; the lease ends the hold")
			.tag("lock", lockName)
			.tag("kind", this.kind)
			.register(this.registry)).increment();
	}

	@Override
	public void onReplicaShortfall(String lockName, long acknowledged, int required) {
		this.shortfallCounters.computeIfAbsent(lockName, (key) -> Counter.builder(this.prefix + ".replica.shortfalls")
			.description("Lock acquisitions and renewals that fewer replicas acknowledged than required, and that stood")
			.tag("lock", lockName)
			.tag("kind", this.kind)
			.register(this.registry)).increment();
	}

	private static String tagValue(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

}

package io.rediskit.autoconfigure.lock;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rediskit.leader.LeadershipGrantedEvent;
import io.rediskit.leader.LeadershipListener;
import io.rediskit.leader.LeadershipRevokedEvent;

/**
 * Records leader election as Micrometer meters, tagged with the {@code role} (a configured, small set):
 * <ul>
 * <li>{@code rediskit.lock.leader.leading} (gauge; {@code role}): 1 while this instance leads the role, else 0.</li>
 * <li>{@code rediskit.lock.leader.granted} (counter; {@code role}): leaderships this instance was granted.</li>
 * <li>{@code rediskit.lock.leader.revoked} (counter; {@code role}, {@code reason} = yielded | lease_lost | stopped):
 * leaderships it lost, and why.</li>
 * </ul>
 */
public class MicrometerLeadershipListener implements LeadershipListener {

	private final MeterRegistry registry;

	private final Map<String, AtomicInteger> leading = new ConcurrentHashMap<>();

	/**
	 * @param registry where the meters go
	 */
	public MicrometerLeadershipListener(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onGranted(LeadershipGrantedEvent event) {
		leading(event.role()).set(1);
		Counter.builder("rediskit.lock.leader.granted")
			.description("Leaderships this instance was granted")
			.tag("role", event.role())
			.register(this.registry)
			.increment();
	}

	@Override
	public void onRevoked(LeadershipRevokedEvent event) {
		leading(event.role()).set(0);
		Counter.builder("rediskit.lock.leader.revoked")
			.description("Leaderships this instance lost, by reason")
			.tag("role", event.role())
			.tag("reason", event.reason().name().toLowerCase(Locale.ROOT))
			.register(this.registry)
			.increment();
	}

	private AtomicInteger leading(String role) {
		return this.leading.computeIfAbsent(role, (name) -> {
			AtomicInteger value = new AtomicInteger();
			Gauge.builder("rediskit.lock.leader.leading", value, AtomicInteger::get)
				.description("1 while this instance leads the role")
				.tag("role", name)
				.register(this.registry);
			return value;
		});
	}

}

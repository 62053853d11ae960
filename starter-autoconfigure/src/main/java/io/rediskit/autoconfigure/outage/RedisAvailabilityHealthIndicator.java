package io.rediskit.autoconfigure.outage;

import java.time.Instant;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.support.RedisAvailability;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether redis-kit sends its calls to Redis: UP while it does, DOWN with {@code since} while it refuses them
 * after an outage was found (until Redis answers a {@code PING}). Asks Redis nothing itself: Spring Boot's own
 * Redis indicator does that.
 */
public class RedisAvailabilityHealthIndicator extends AbstractHealthIndicator {

	private final RedisAvailability availability;

	/**
	 * @param availability what to report
	 */
	public RedisAvailabilityHealthIndicator(RedisAvailability availability) {
		super("Redis availability check failed");
		this.availability = availability;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Instant since = this.availability.unavailableSince();
		builder.withDetail("probeInterval", Durations.format(this.availability.probeInterval()));
		if (since == null) {
			builder.up();
		}
		else {
			builder.down().withDetail("since", since.toString());
		}
	}

}

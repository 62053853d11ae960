package io.rediskit.sample;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import io.rediskit.support.RedisAvailability;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Order state in Redis ({@code sample:order:<id>}: status, charges and the highest fencing token seen), with a
 * deliberately slow, non-atomic check-then-charge that only a lock keeps correct.
 */
@Component
public class Orders {

	// The ledger accepts a write only with a fencing token above every token it accepted: a holder whose lease
	// ran out cannot overwrite the new holder's work.
	private static final RedisScript<Long> FENCED_CHARGE = RedisScript.of("""
			local last = tonumber(redis.call('HGET', KEYS[1], 'token') or '0')
			if tonumber(ARGV[1]) <= last then return 0 end
			redis.call('HSET', KEYS[1], 'token', ARGV[1], 'status', 'PAID')
			redis.call('HINCRBY', KEYS[1], 'charges', 1)
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final Duration paymentDelay;

	private final @Nullable RedisAvailability availability;

	Orders(StringRedisTemplate redis, @Value("${sample.payment-delay:300ms}") Duration paymentDelay,
			ObjectProvider<RedisAvailability> availability) {
		this.redis = redis;
		this.paymentDelay = paymentDelay;
		this.availability = availability.getIfAvailable();
	}

	/**
	 * Runs one of the sample's own Redis calls through redis-kit's availability gate: refused at once while an
	 * outage is known, and an outage it finds refuses redis-kit's calls too, so that a request waits for one
	 * command timeout in all, not one for this call and another for the lock's release.
	 */
	private <T> T redis(Supplier<T> call) {
		return (this.availability != null) ? this.availability.call(call) : call.get();
	}

	boolean isPaid(String orderId) {
		return "PAID".equals(redis(() -> this.redis.opsForHash().get(key(orderId), "status")));
	}

	/** Calls the (simulated) payment provider, then records the charge. Not atomic: callers hold the lock. */
	void charge(String orderId) {
		callPaymentProvider();
		redis(() -> {
			this.redis.opsForHash().put(key(orderId), "status", "PAID");
			return this.redis.opsForHash().increment(key(orderId), "charges", 1);
		});
	}

	/** Like {@link #charge(String)}, with the write fenced by the lock's token. */
	boolean chargeFenced(String orderId, long fencingToken) {
		callPaymentProvider();
		Long accepted = redis(
				() -> this.redis.execute(FENCED_CHARGE, List.of(key(orderId)), Long.toString(fencingToken)));
		return accepted != null && accepted == 1L;
	}

	long charges(String orderId) {
		Object charges = redis(() -> this.redis.opsForHash().get(key(orderId), "charges"));
		return (charges != null) ? Long.parseLong(charges.toString()) : 0;
	}

	private void callPaymentProvider() {
		try {
			Thread.sleep(this.paymentDelay.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Payment interrupted", ex);
		}
	}

	private static String key(String orderId) {
		return "sample:order:" + orderId;
	}

}

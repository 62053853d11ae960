package io.rediskit.sample;

import java.time.Duration;
import java.util.List;

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

	Orders(StringRedisTemplate redis, @Value("${sample.payment-delay:300ms}") Duration paymentDelay) {
		this.redis = redis;
		this.paymentDelay = paymentDelay;
	}

	boolean isPaid(String orderId) {
		return "PAID".equals(this.redis.opsForHash().get(key(orderId), "status"));
	}

	/** Calls the (simulated) payment provider, then records the charge. Not atomic: callers hold the lock. */
	void charge(String orderId) {
		callPaymentProvider();
		this.redis.opsForHash().put(key(orderId), "status", "PAID");
		this.redis.opsForHash().increment(key(orderId), "charges", 1);
	}

	/** Like {@link #charge(String)}, with the write fenced by the lock's token. */
	boolean chargeFenced(String orderId, long fencingToken) {
		callPaymentProvider();
		Long accepted = this.redis.execute(FENCED_CHARGE, List.of(key(orderId)), Long.toString(fencingToken));
		return accepted != null && accepted == 1L;
	}

	long charges(String orderId) {
		Object charges = this.redis.opsForHash().get(key(orderId), "charges");
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

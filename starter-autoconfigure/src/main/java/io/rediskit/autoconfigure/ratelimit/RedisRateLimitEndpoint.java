package io.rediskit.autoconfigure.ratelimit;

import java.util.List;
import java.util.Locale;
import java.util.SortedSet;

import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.EntryNames;
import io.rediskit.autoconfigure.support.InvalidEndpointRequest;
import io.rediskit.ratelimit.RateLimitSpec;
import io.rediskit.ratelimit.RateLimitState;
import io.rediskit.ratelimit.RateLimiter;
import io.rediskit.ratelimit.RateLimiterRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * Actuator endpoint {@code rediskitratelimit}: every configured or used rate limiter with its policy now
 * ({@code GET /actuator/rediskitratelimit}), and one key's state read without taking a permit
 * ({@code GET /actuator/rediskitratelimit/{limiter}/{key}}, {@link RateLimiter#peek(String)}: one read-only script
 * that writes nothing). The web console reads the same descriptors.
 */
@Endpoint(id = "rediskitratelimit")
public class RedisRateLimitEndpoint {

	/** The longest key a lookup takes: keys are identifiers, not documents. */
	public static final int MAX_KEY_LENGTH = 1024;

	private static final String KEY_LENGTH = "key must have 1 to " + MAX_KEY_LENGTH + " characters";

	private final RateLimiterRegistry registry;

	private final RateLimitProperties properties;

	/**
	 * @param registry the limiters
	 * @param properties the configured limiters
	 */
	public RedisRateLimitEndpoint(RateLimiterRegistry registry, RateLimitProperties properties) {
		this.registry = registry;
		this.properties = properties;
	}

	/** @return the configured limiters and those used so far, sorted */
	public SortedSet<String> names() {
		return EntryNames.of(this.registry.names(), this.properties.getLimiters());
	}

	/** @return every limiter with its policy */
	@ReadOperation
	public LimitersDescriptor limiters() {
		return new LimitersDescriptor(names().stream().map(this::describe).toList());
	}

	private LimiterDescriptor describe(String name) {
		try {
			RateLimitSpec spec = this.registry.get(name).spec();
			return new LimiterDescriptor(name, algorithm(spec), spec.limit(), Durations.format(spec.period()),
					spec.burst(), spec.failurePolicy().name().toLowerCase(Locale.ROOT).replace('_', '-'), null);
		}
		catch (RuntimeException ex) {
			return new LimiterDescriptor(name, null, null, null, null, null, String.valueOf(ex.getMessage()));
		}
	}

	/**
	 * Reads one key's state without taking a permit, over HTTP or JMX: a limiter not {@link #names() listed} is
	 * answered as Spring Boot's own endpoints answer a name they do not have (404 over HTTP), a key empty or too long
	 * as a bad request (400), never as a server error.
	 * @param limiter a limiter {@link #names() listed}
	 * @param key the key, as the application passes it to the limiter
	 * @return the key's limit, remaining permits, wait for the next permit and time until full again; {@code null}
	 * for a limiter not listed
	 * @throws org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException
	 * for a key empty or longer than {@value #MAX_KEY_LENGTH} (not echoed: it
	 * is user input)
	 */
	@ReadOperation
	public @Nullable KeyStateDescriptor key(@Selector String limiter, @Selector String key) {
		if (!names().contains(limiter)) {
			return null;
		}
		if (!isKey(key)) {
			throw InvalidEndpointRequest.of(KEY_LENGTH);
		}
		return keyState(limiter, key);
	}

	/**
	 * Reads one key's state without taking a permit, for a reader that answers bad input itself (the console).
	 * @param limiter a limiter {@link #names() listed}
	 * @param key the key, as the application passes it to the limiter
	 * @return the key's limit, remaining permits, wait for the next permit and time until full again
	 * @throws IllegalArgumentException if no such limiter is listed or the key is empty or longer than
	 * {@value #MAX_KEY_LENGTH} (neither is echoed: both are user input)
	 */
	public KeyStateDescriptor keyState(String limiter, String key) {
		if (!names().contains(limiter)) {
			throw new IllegalArgumentException("No rate limiter is named so");
		}
		if (!isKey(key)) {
			throw new IllegalArgumentException(KEY_LENGTH);
		}
		RateLimiter handle = this.registry.get(limiter);
		RateLimitState state = handle.peek(key);
		return new KeyStateDescriptor(limiter, algorithm(handle.spec()), state.limit(), state.remaining(),
				state.retryAfter().toMillis(), state.resetAfter().toMillis());
	}

	private static boolean isKey(String key) {
		return !key.isEmpty() && key.length() <= MAX_KEY_LENGTH;
	}

	private static String algorithm(RateLimitSpec spec) {
		return spec.algorithm().name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * The endpoint's response.
	 * @param limiters each limiter, by name
	 */
	public record LimitersDescriptor(List<LimiterDescriptor> limiters) {
	}

	/**
	 * One limiter's policy now.
	 * @param name its name
	 * @param algorithm {@code sliding-log}, {@code token-bucket}, ... ; {@code null} when its spec could not be built
	 * @param limit permits per period
	 * @param period the period, as a person writes it ({@code 1m})
	 * @param burst the burst above the limit, if any
	 * @param failurePolicy what a call does while Redis is unavailable ({@code fail-open}, {@code fail-closed})
	 * @param error why its spec could not be built
	 */
	public record LimiterDescriptor(String name, @Nullable String algorithm, @Nullable Long limit,
			@Nullable String period, @Nullable Long burst, @Nullable String failurePolicy, @Nullable String error) {
	}

	/**
	 * One key's state, as a request made now would be told it. The key is not repeated: it is user input, which
	 * answers never echo, and the caller named it.
	 * @param limiter the limiter
	 * @param algorithm the limiter's algorithm
	 * @param limit the permits per period
	 * @param remaining the permits left now
	 * @param retryAfterMillis how long until the next permit, 0 when one is free
	 * @param resetAfterMillis how long until the key is at full capacity again
	 */
	public record KeyStateDescriptor(String limiter, String algorithm, long limit, long remaining,
			long retryAfterMillis, long resetAfterMillis) {
	}

}

package io.rediskit.sample;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * The README's capped-sessions recipe, for tokens Spring Session does not hold (API or device tokens): each user's
 * tokens in a sorted set scored by last use; a use moves a token up and, past the cap, drops the least recently
 * used ones, in one script on the server's clock (in microseconds: two uses in one millisecond keep their order). The caller revokes what comes back.
 */
@Component
public class CappedTokens {

	static final int MAX_PER_USER = 3;

	static final Duration IDLE = Duration.ofDays(30);

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> USE = RedisScript.of("""
			local time = redis.call('TIME')
			redis.call('ZADD', KEYS[1], time[1] * 1000000 + time[2], ARGV[1])
			local dropped = redis.call('ZRANGE', KEYS[1], 0, -(tonumber(ARGV[2]) + 1))
			if #dropped > 0 then
			  redis.call('ZREM', KEYS[1], unpack(dropped))
			end
			redis.call('PEXPIRE', KEYS[1], ARGV[3])
			return dropped
			""", List.class);

	private final StringRedisTemplate redis;

	public CappedTokens(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Records that a token was used (or issued).
	 * @param user whose token
	 * @param token the token
	 * @return the tokens dropped to keep the user within the cap, least recently used first: revoke them
	 */
	@SuppressWarnings("unchecked")
	public List<String> used(String user, String token) {
		return this.redis.execute(USE, List.of(key(user)), token, Integer.toString(MAX_PER_USER),
				Long.toString(IDLE.toMillis()));
	}

	/**
	 * @param user whose token
	 * @param token the token
	 * @return whether it is among the user's kept tokens
	 */
	public boolean isKept(String user, String token) {
		return this.redis.opsForZSet().score(key(user), token) != null;
	}

	private static String key(String user) {
		return "sample:tokens:" + user;
	}

}

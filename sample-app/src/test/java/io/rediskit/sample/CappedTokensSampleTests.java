package io.rediskit.sample;

import io.rediskit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's capped-sessions recipe against a real redis-server: the least recently used tokens go first. */
class CappedTokensSampleTests {

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	@Test
	void theLeastRecentlyUsedTokensAreDroppedPastTheCap() {
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()));
		connections.afterPropertiesSet();
		connections.start();
		try {
			StringRedisTemplate template = new StringRedisTemplate(connections);
			CappedTokens tokens = new CappedTokens(template);
			assertThat(tokens.used("ada", "phone")).isEmpty();
			assertThat(tokens.used("ada", "laptop")).isEmpty();
			assertThat(tokens.used("ada", "tablet")).isEmpty();
			// A use moves the phone up: the laptop is now the least recently used.
			assertThat(tokens.used("ada", "phone")).isEmpty();
			assertThat(tokens.used("ada", "watch")).containsExactly("laptop");
			assertThat(tokens.isKept("ada", "laptop")).isFalse();
			assertThat(tokens.isKept("ada", "phone")).isTrue();
			assertThat(tokens.used("grace", "phone")).as("per user").isEmpty();
			assertThat(template.getExpire("sample:tokens:ada")).isPositive();
			assertThat(template.opsForZSet().size("sample:tokens:ada")).isEqualTo(CappedTokens.MAX_PER_USER);
			assertThat(tokens.used("ada", "tv")).containsExactly("tablet");
		}
		finally {
			connections.destroy();
		}
	}

}

package io.rediskit.support;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class LuaScriptTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	@Test
	void runsByShaAndRecoversOnceFromScriptFlush() {
		LuaScript script = LuaScript.fromClasspath("META-INF/redis-kit/scripts/lock/renew.lua");
		byte[] key = "k".getBytes(StandardCharsets.UTF_8);
		redis.server().command("HSET", "k", "o", "me");
		Long first = script.execute(redis.connections(), ReturnType.INTEGER, 1, key, bytes("me"), bytes("10000"));
		assertThat(first).isEqualTo(1L);
		assertThat(redis.server().command("SCRIPT", "EXISTS", script.sha1())).isEqualTo(java.util.List.of(1L));
		redis.server().command("SCRIPT", "FLUSH");
		Long afterFlush = script.execute(redis.connections(), ReturnType.INTEGER, 1, key, bytes("me"), bytes("20000"));
		assertThat(afterFlush).isEqualTo(1L);
		assertThat((Long) redis.server().command("PTTL", "k")).isGreaterThan(10_000L);
		assertThat(redis.server().command("SCRIPT", "EXISTS", script.sha1())).isEqualTo(java.util.List.of(1L));
	}

	@Test
	void missingResourceFailsClearly() {
		assertThatIllegalStateException().isThrownBy(() -> LuaScript.fromClasspath("nope.lua"))
			.withMessageContaining("nope.lua");
	}

	@Test
	void recognisesNoScriptByTypeOrErrorCode() {
		assertThat(LuaScript.isNoScript(new RuntimeException(new io.lettuce.core.RedisNoScriptException("x")))).isTrue();
		assertThat(LuaScript.isNoScript(new RuntimeException("NOSCRIPT No matching script"))).isTrue();
		assertThat(LuaScript.isNoScript(new RuntimeException("ERR something else"))).isFalse();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

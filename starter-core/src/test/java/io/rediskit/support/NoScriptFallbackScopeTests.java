package io.rediskit.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * After {@code SCRIPT FLUSH} on the real server, each call's {@code EVALSHA} is answered {@code NOSCRIPT} and the
 * body is sent with {@code EVAL}: that fallback is dispatched in the scope of the observation that was current when
 * the call was dispatched, sync and async (where the driver's thread sends it), and the scope is closed before the
 * reply is handled. Deterministic: the driver's own command listener notes, on the thread that writes each command,
 * which observation is current there; no tracer, no timing.
 */
class NoScriptFallbackScopeTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final LuaScript SCRIPT = LuaScript
		.fromClasspath("META-INF/redis-kit/scripts/queue/recurring_pause.lua");

	@Test
	void theFallbackEvalIsDispatchedInTheScopeOfItsCallAndTheScopeDoesNotLeak() {
		TestObservationRegistry registry = TestObservationRegistry.create();
		List<String> sent = new CopyOnWriteArrayList<>();
		LettuceConnectionFactory factory = TestConnections.lettuce(redis.server());
		try {
			// Before the first connection: the driver installs its listeners as it connects.
			factory.getNativeClient().addListener(new CommandListener() {

				@Override
				public void commandStarted(CommandStartedEvent event) {
					String type = event.getCommand().getType().toString().toLowerCase(Locale.ROOT);
					if (type.startsWith("eval")) {
						Observation current = registry.getCurrentObservation();
						sent.add(type + " " + ((current != null) ? current.getContext().getName() : "none"));
					}
				}

			});
			ScopeRecordingScripts scripts = new ScopeRecordingScripts(ScriptExecutor.of(factory), registry);
			byte[][] keysAndArgs = { utf8("rk:test:paused"), utf8("read"), utf8("0") };

			redis.server().command("SCRIPT", "FLUSH");
			Observation async = Observation.start("async", registry);
			CompletionStage<Long> reply;
			try (Observation.Scope scope = async.openScope()) {
				reply = scripts.executeAsync(SCRIPT, ReturnType.INTEGER, 1, keysAndArgs);
			}
			assertThat(reply.toCompletableFuture().join()).isZero();
			async.stop();

			redis.server().command("SCRIPT", "FLUSH");
			Observation waited = Observation.start("waited", registry);
			CompletionStage<ReplicaWait.Acknowledged<Long>> acknowledged;
			try (Observation.Scope scope = waited.openScope()) {
				acknowledged = scripts.executeAndWaitAsync(SCRIPT, ReturnType.INTEGER,
						ReplicaWait.accepting(1, Duration.ofMillis(10)), 1, keysAndArgs);
			}
			assertThat(acknowledged.toCompletableFuture().join().reply()).isZero();
			waited.stop();

			redis.server().command("SCRIPT", "FLUSH");
			Observation sync = Observation.start("sync", registry);
			try (Observation.Scope scope = sync.openScope()) {
				assertThat(scripts.<Long>execute(SCRIPT, ReturnType.INTEGER, 1, keysAndArgs)).isZero();
			}
			sync.stop();

			assertThat(sent).containsExactly("evalsha async", "eval async", "evalsha waited", "eval waited",
					"evalsha sync", "eval sync");
			assertThat(registry.getCurrentObservation()).as("no scope left open on the caller's thread").isNull();
			assertThat(scripts.completed).as("none open on the driver's thread when the reply is handled")
				.allMatch("none"::equals);
		}
		finally {
			factory.destroy();
		}
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}

package io.rediskit.geo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ObservationRecorder;
import io.rediskit.support.RedisFailures;
import io.rediskit.support.RedisKitObservation;
import io.rediskit.support.ScriptExecutor;
import io.rediskit.support.TestConnections;
import io.rediskit.testsupport.RedisServerExtension;
import io.rediskit.testsupport.RedisServerProcess;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A geo index under faults: the server paused ({@code SIGSTOP}), killed and restarted, its scripts flushed, a
 * key of another type. Puts and searches fail with Spring's {@code DataAccessException} within the command
 * timeout, sync and async, each call is observed as an error, and the index works again once the server does.
 */
class GeoOutageTests {

	static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	static final GeoPoint LOUVRE = GeoPoint.ofLatLon(48.8610, 2.3360);

	static final GeoQuery NEAR_LOUVRE = GeoQuery.around(LOUVRE).withinRadius(1, GeoUnit.KILOMETERS);

	@RegisterExtension
	static final RedisServerExtension redis = RedisServerExtension.standalone();

	final ObservationRecorder recorder = new ObservationRecorder();

	RedisServerProcess server;

	LettuceConnectionFactory connections;

	GeoIndexRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.server = redis.server();
		this.connections = TestConnections.lettuce(this.server, COMMAND_TIMEOUT);
		this.registry = new GeoIndexRegistry(ScriptExecutor.of(this.connections), CommandExecutor.of(this.connections),
				KeyNaming.defaults(), List.of(), (name) -> null);
		this.registry.setObservations(this.recorder.observations());
	}

	/** @return {@code "<index> <operation>"} of each call observed as failed */
	List<String> failures() {
		return this.recorder.calls(RedisKitObservation.GEO_OPERATION, "error");
	}

	@AfterEach
	void tearDown() {
		if (!this.server.isAlive()) {
			this.server.restart();
		}
		else {
			this.server.resume();
		}
		this.connections.destroy();
	}

	@Test
	void aPausedServerFailsPutsAndSearchesWithinTheCommandTimeoutSyncAndAsync() throws Exception {
		GeoIndex bikes = this.registry.create("bikes", GeoIndexSpec.byCell(26).withMemberTtl(Duration.ofMinutes(5)));
		GeoIndex flat = this.registry.create("flat", GeoIndexSpec.unsharded());
		// Connect first: a pause before the first connection would fail with a connection error instead.
		bikes.put("a", LOUVRE);
		flat.put("a", LOUVRE);
		this.server.pause();
		try {
			for (GeoIndex index : List.of(bikes, flat)) {
				assertFailsWithinTheTimeout(() -> index.put("b", GeoPoint.ofLatLon(48.8620, 2.3360)));
				assertFailsWithinTheTimeout(() -> index.nearby(NEAR_LOUVRE));
				assertFailsWithinTheTimeout(() -> join(index.putAsync("c", LOUVRE)));
				assertFailsWithinTheTimeout(() -> join(index.nearbyAsync(NEAR_LOUVRE)));
			}
		}
		finally {
			this.server.resume();
		}
		assertThat(failures()).containsExactly("bikes put", "bikes nearby", "bikes put", "bikes nearby",
				"flat put", "flat nearby", "flat put", "flat nearby");
		// The timed-out puts were sent before the pause ended: the server applied them when it resumed.
		for (GeoIndex index : List.of(bikes, flat)) {
			assertThat(index.nearby(NEAR_LOUVRE)).extracting(GeoMatch::member).containsExactly("a", "c", "b");
		}
	}

	@Test
	void aKilledServerFailsFastAndTheIndexWorksAgainAfterItsRestart() throws Exception {
		GeoIndex bikes = this.registry.create("bikes", GeoIndexSpec.byCell(26).withMemberTtl(Duration.ofMinutes(5)));
		bikes.put("a", LOUVRE);
		this.server.kill();
		long started = System.nanoTime();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> bikes.put("b", LOUVRE))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> bikes.nearby(NEAR_LOUVRE));
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> join(bikes.nearbyAsync(NEAR_LOUVRE)));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(COMMAND_TIMEOUT.multipliedBy(12));
		assertThat(failures()).containsExactly("bikes put", "bikes nearby", "bikes nearby");

		// Restarted without persistence: empty, and without the scripts. The first put after the reconnect
		// succeeds (the executor sends the script body once on NOSCRIPT).
		this.server.restart();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (true) {
			try {
				bikes.put("b", GeoPoint.ofLatLon(48.8620, 2.3360));
				break;
			}
			catch (DataAccessException ex) {
				assertThat(RedisFailures.isUnavailable(ex)).as("only outage failures while reconnecting").isTrue();
				assertThat(System.nanoTime()).as("reconnected within 60 s").isLessThan(deadline);
				Thread.sleep(50);
			}
		}
		assertThat(bikes.nearby(NEAR_LOUVRE)).extracting(GeoMatch::member).containsExactly("b");
		assertThat(join(bikes.nearbyAsync(NEAR_LOUVRE)))
			.extracting(GeoMatch::member)
			.containsExactly("b");
	}

	@Test
	void eachScriptIsResentExactlyOnceAfterScriptFlush() {
		GeoIndex bikes = this.registry.create("bikes", GeoIndexSpec.byCell(26).withMemberTtl(Duration.ofMinutes(5)));
		bikes.put("a", LOUVRE);
		assertThat(bikes.nearby(NEAR_LOUVRE)).hasSize(1);
		this.server.command("SCRIPT", "FLUSH");
		this.server.command("CONFIG", "RESETSTAT");
		bikes.put("b", GeoPoint.ofLatLon(48.8620, 2.3360));
		bikes.put("c", GeoPoint.ofLatLon(48.8630, 2.3360));
		assertThat(bikes.nearby(NEAR_LOUVRE)).extracting(GeoMatch::member).containsExactly("a", "b", "c");
		assertThat(bikes.nearby(NEAR_LOUVRE)).hasSize(3);
		assertThat(bikes.remove("c")).isTrue();
		String stats = String.valueOf(this.server.command("INFO", "commandstats"));
		// put, search and remove: each body sent once, on the NOSCRIPT of its first EVALSHA; then EVALSHA only.
		assertThat(calls(stats, "eval")).isEqualTo(3);
		assertThat(calls(stats, "evalsha")).isEqualTo(5);
		assertThat(failures()).isEmpty();
	}

	@Test
	void aKeyOfAnotherTypeIsACommandErrorNotAnOutage() {
		GeoIndex flat = this.registry.create("flat", GeoIndexSpec.unsharded());
		this.server.command("SET", "rk:geo:{flat}", "not a geo set");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> flat.put("a", LOUVRE))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse())
			.havingRootCause()
			.withMessageContaining("WRONGTYPE");
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> flat.nearby(NEAR_LOUVRE))
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isFalse());
	}

	/**
	 * The call fails with a {@code DataAccessException} that is an outage, after one command timeout and well
	 * within a few (generous slack for a loaded machine).
	 */
	private static void assertFailsWithinTheTimeout(ThrowingCallable call) {
		long started = System.nanoTime();
		assertThatExceptionOfType(DataAccessException.class).isThrownBy(call)
			.satisfies((ex) -> assertThat(RedisFailures.isUnavailable(ex)).isTrue());
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(COMMAND_TIMEOUT)
			.isLessThan(COMMAND_TIMEOUT.multipliedBy(6));
	}

	/** Waits for an async call the way a caller would, unwrapping its failure. */
	private static <T> T join(CompletionStage<T> stage) throws Exception {
		try {
			return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	private static long calls(String commandStats, String command) {
		for (String line : commandStats.split("\r?\n")) {
			if (line.startsWith("cmdstat_" + command + ":")) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

}

package io.rediskit.cache;

import java.nio.charset.StandardCharsets;

import io.rediskit.cache.CacheMessages.Message;
import io.rediskit.cache.CacheScripts.Claim;
import io.rediskit.cache.CacheScripts.Claimed;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache's scripts run directly, one call each: a claim's four answers, a fill's ends of a load, a reload's
 * lease, the writes and reads, and the keys and TTLs they leave.
 */
class CacheScriptsTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	private static final long LEASE_MILLIS = 10_000;

	private static final String VALUE_KEY = "rk:cache:{products:1}";

	private static final String LEASE_KEY = VALUE_KEY + ":load";

	private static final String OUTCOME_KEY = VALUE_KEY + ":outcome";

	private final CacheScripts scripts = new CacheScripts(redis.scripts(), CommandExecutor.of(redis.connections()),
			KeyNaming.defaults(), "products", "rk:cache:events:products", LEASE_MILLIS);

	private final byte[] first = CacheScripts.newToken();

	private final byte[] second = CacheScripts.newToken();

	@BeforeEach
	void flush() {
		redis.flushAll();
	}

	@Test
	void aClaimTakesTheLeaseOnceAndTellsTheOthersItsHolder() {
		assertThat(this.scripts.claim("1", this.first, CacheScripts.NONE).state()).isEqualTo(Claimed.LEASED);
		assertThat(redis.server().command("GET", LEASE_KEY)).isEqualTo(utf8(this.first));
		assertThat((Long) redis.server().command("PTTL", LEASE_KEY)).isBetween(1L, LEASE_MILLIS);
		Claim busy = this.scripts.claim("1", this.second, CacheScripts.NONE);
		assertThat(busy.state()).isEqualTo(Claimed.BUSY);
		assertThat(busy.bytes()).isEqualTo(this.first);
	}

	@Test
	void aFillStoresTheValueEndsItsLeaseAndTheNextClaimFindsIt() {
		this.scripts.claim("1", this.first, CacheScripts.NONE);
		byte[] value = bytes("\"lamp\"");
		this.scripts.fill("1", this.first, value, 60_000, CacheMessages.of(CacheMessages.LOADED, "1", value));
		assertThat(redis.server().command("EXISTS", LEASE_KEY)).isEqualTo(0L);
		assertThat(redis.server().command("EXISTS", OUTCOME_KEY)).as("a stored value is its own outcome").isEqualTo(0L);
		Claim found = this.scripts.claim("1", this.second, this.first);
		assertThat(found.state()).isEqualTo(Claimed.FOUND);
		assertThat(found.bytes()).isEqualTo(value);
		assertThat(found.pttl()).isBetween(1L, 60_000L);
	}

	@Test
	void aLoadThatStoredNothingLeavesItsOutcomeForItsWaitersOnly() {
		this.scripts.claim("1", this.first, CacheScripts.NONE);
		byte[] failed = CacheStore.failedMessage("1", new IllegalStateException("database down"));
		this.scripts.fill("1", this.first, CacheScripts.NONE, 0, failed);
		assertThat(redis.server().command("EXISTS", VALUE_KEY)).isEqualTo(0L);
		assertThat((Long) redis.server().command("PTTL", OUTCOME_KEY)).isBetween(1L, LEASE_MILLIS);
		Claim ended = this.scripts.claim("1", this.second, this.first);
		assertThat(ended.state()).as("a waiter of that load").isEqualTo(Claimed.ENDED);
		Message message = Message.read(ended.bytes());
		assertThat(message.type()).isEqualTo(CacheMessages.FAILED);
		assertThat(new String(message.payload(), StandardCharsets.UTF_8))
			.isEqualTo("java.lang.IllegalStateException: database down");
		assertThat(this.scripts.claim("1", this.second, CacheScripts.NONE).state()).as("a caller waiting for none")
			.isEqualTo(Claimed.LEASED);
	}

	@Test
	void aFillLeavesTheLeaseOfTheNextHolder() {
		this.scripts.claim("1", this.first, CacheScripts.NONE);
		redis.server().command("DEL", LEASE_KEY);
		this.scripts.claim("1", this.second, CacheScripts.NONE);
		this.scripts.fill("1", this.first, CacheScripts.NONE, 0, CacheStore.nullMessage("1"));
		assertThat(redis.server().command("GET", LEASE_KEY)).isEqualTo(utf8(this.second));
	}

	@Test
	void aReloadLeasesAnEntryNotRewrittenSinceItsDecisionAndNotHeldByAnother() {
		this.scripts.put("1", bytes("\"lamp\""), 60_000);
		long pttl = this.scripts.read("1").pttl();
		assertThat(this.scripts.lease("1", this.first, pttl - 30_000)).as("rewritten since").isFalse();
		assertThat(redis.server().command("EXISTS", LEASE_KEY)).isEqualTo(0L);
		assertThat(this.scripts.lease("1", this.first, pttl)).isTrue();
		assertThat(this.scripts.lease("1", this.second, pttl)).as("held by another").isFalse();
		assertThat(redis.server().command("GET", LEASE_KEY)).isEqualTo(utf8(this.first));
	}

	@Test
	void writesAndReadsOneRoundTripEach() {
		assertThat(this.scripts.read("1")).isNull();
		assertThat(this.scripts.get("1")).isNull();
		assertThat(this.scripts.putIfAbsent("1", bytes("\"lamp\""), 60_000)).isNull();
		assertThat(this.scripts.putIfAbsent("1", bytes("\"desk\""), 60_000)).isEqualTo(bytes("\"lamp\""));
		assertThat(this.scripts.get("1")).isEqualTo(bytes("\"lamp\""));
		this.scripts.put("1", bytes("\"desk\""), 60_000);
		CacheScripts.Entry entry = this.scripts.read("1");
		assertThat(entry.bytes()).isEqualTo(bytes("\"desk\""));
		assertThat(entry.pttl()).isBetween(1L, 60_000L);
		assertThat(this.scripts.readAsync("1").join().bytes()).isEqualTo(bytes("\"desk\""));
		assertThat(this.scripts.evict("1")).isTrue();
		assertThat(this.scripts.evict("1")).isFalse();
		assertThat(redis.server().command("EXISTS", VALUE_KEY)).isEqualTo(0L);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static String utf8(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

}

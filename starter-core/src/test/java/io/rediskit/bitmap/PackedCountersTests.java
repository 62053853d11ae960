package io.rediskit.bitmap;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Packed counters over BITFIELD: each overflow mode, widths, and bad input refused before Redis. */
class PackedCountersTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	BitmapRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new BitmapRegistry(redis.scripts(), CommandExecutor.of(redis.connections()), KeyNaming.defaults(),
				(name) -> null);
	}

	@Test
	void eachOverflowModeDoesWhatItSays() {
		PackedCounters wrap = this.registry.createPackedCounters("wrap", PackedCounterSpec.unsigned(8, Overflow.WRAP));
		PackedCounters sat = this.registry.createPackedCounters("sat", PackedCounterSpec.unsigned(8, Overflow.SAT));
		PackedCounters fail = this.registry.createPackedCounters("fail", PackedCounterSpec.unsigned(8, Overflow.FAIL));
		for (PackedCounters counters : List.of(wrap, sat, fail)) {
			assertThat(counters.incrementBy("u1", 3, 250)).hasValue(250);
		}
		assertThat(wrap.incrementBy("u1", 3, 10)).hasValue(4);
		assertThat(sat.incrementBy("u1", 3, 10)).hasValue(255);
		assertThat(fail.incrementBy("u1", 3, 10)).isEqualTo(OptionalLong.empty());
		assertThat(fail.get("u1", 3)).as("a refused increment leaves the counter").isEqualTo(250);
		assertThat(sat.incrementBy("u1", 3, -1000)).hasValue(0);
		// Neighbours are untouched: counter 3 of a u8 array is byte 3.
		assertThat(wrap.get("u1", 2)).isZero();
		assertThat(redis.server().command("STRLEN", "rk:bitmap:{wrap:u1}:packed")).isEqualTo(4L);
	}

	@Test
	void signedCountersOfEveryWidthHoldTheirRange() {
		PackedCounters signed = this.registry.createPackedCounters("i64", PackedCounterSpec.signed(64, Overflow.SAT));
		assertThat(signed.set("k", 0, Long.MIN_VALUE)).isZero();
		assertThat(signed.incrementBy("k", 0, -1)).hasValue(Long.MIN_VALUE);
		PackedCounters i5 = this.registry.createPackedCounters("i5", PackedCounterSpec.signed(5, Overflow.WRAP));
		assertThat(i5.incrementBy("k", 7, 15)).hasValue(15);
		assertThat(i5.incrementBy("k", 7, 1)).hasValue(-16);
		PackedCounters u63 = this.registry.createPackedCounters("u63", PackedCounterSpec.unsigned(63, Overflow.FAIL));
		assertThat(u63.set("k", 1, Long.MAX_VALUE)).isZero();
		assertThat(u63.get("k", 1)).isEqualTo(Long.MAX_VALUE);
		assertThatIllegalArgumentException().isThrownBy(() -> i5.set("k", 0, 16)).withMessageContaining("from -16 to 15");
	}

	@Test
	void badWidthsAndOffsetsAreRefusedBeforeRedis() {
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> PackedCounterSpec.unsigned(64, Overflow.SAT))
			.withMessageContaining("width must be from 1 to 63 for unsigned");
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> PackedCounterSpec.signed(65, Overflow.SAT));
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> PackedCounterSpec.signed(0, Overflow.SAT));
		assertThatExceptionOfType(InvalidSpecException.class).isThrownBy(() -> new PackedCounterSpec(8, false, null, 64))
			.withMessageContaining("overflow must be chosen");
		assertThatExceptionOfType(InvalidSpecException.class)
			.isThrownBy(() -> PackedCounterSpec.unsigned(8, Overflow.SAT).withMaxBits((1L << 32) + 1));
		PackedCounters counters = this.registry.createPackedCounters("bounded", PackedCounterSpec.unsigned(8, Overflow.SAT));
		// A user id used as an index near 2^32 would allocate 512 MB: refused, nothing sent.
		for (long index : new long[] { -1, 4_000_000_000L, PackedCounterSpec.DEFAULT_MAX_BITS / 8 }) {
			assertThatIllegalArgumentException().as(Long.toString(index))
				.isThrownBy(() -> counters.incrementBy("k", index, 1))
				.withMessageContaining("index must be from 0 to 1048575");
		}
		assertThat(counters.incrementBy("k", PackedCounterSpec.DEFAULT_MAX_BITS / 8 - 1, 1)).hasValue(1);
		assertThat(redis.server().command("STRLEN", "rk:bitmap:{bounded:k}:packed")).isEqualTo(1L << 20);
	}

	@Test
	void getAndSetHaveAsyncForms() throws Exception {
		PackedCounters counters = this.registry.createPackedCounters("async", PackedCounterSpec.unsigned(8, Overflow.SAT));
		assertThat(counters.setAsync("u1", 5, 42).toCompletableFuture().get(5, TimeUnit.SECONDS)).isZero();
		assertThat(counters.getAsync("u1", 5).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(42L);
		assertThat(counters.setAsync("u1", 5, 7).toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo(42L);
		assertThatIllegalArgumentException().isThrownBy(() -> counters.setAsync("u1", 5, 256));
	}

}

package io.rediskit.keys;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The scan's compact memory of returned keys: exact on hash collisions, for any key length, as it grows. */
class SeenKeysTests {

	@Test
	void keysWithTheSameHashAreStillTwoKeys() {
		SeenKeys seen = new SeenKeys();
		assertThat(Arrays.hashCode(utf8("Aa"))).as("a collision of the hash").isEqualTo(Arrays.hashCode(utf8("BB")));
		assertThat(seen.add(utf8("Aa"))).isTrue();
		assertThat(seen.add(utf8("BB"))).as("same hash, other bytes").isTrue();
		assertThat(seen.add(utf8("Aa"))).isFalse();
		assertThat(seen.add(utf8("BB"))).isFalse();
		assertThat(seen.add(utf8("AaBB"))).isTrue();
		assertThat(seen.add(utf8("BBAa"))).isTrue();
		assertThat(seen.size()).isEqualTo(4);
	}

	@Test
	void emptyAndHugeKeysAndManyKeysAreRememberedExactly() {
		SeenKeys seen = new SeenKeys();
		assertThat(seen.add(new byte[0])).isTrue();
		assertThat(seen.add(new byte[0])).isFalse();
		byte[] huge = new byte[3 << 20];
		Arrays.fill(huge, (byte) 'x');
		assertThat(seen.add(huge)).as("longer than a chunk").isTrue();
		byte[] hugeToo = huge.clone();
		hugeToo[hugeToo.length - 1] = 'y';
		assertThat(seen.add(hugeToo)).isTrue();
		assertThat(seen.add(huge.clone())).isFalse();
		int n = 300_000;
		for (int i = 0; i < n; i++) {
			assertThat(seen.add(utf8("user:" + i))).isTrue();
		}
		for (int i = 0; i < n; i++) {
			if (seen.add(utf8("user:" + i))) {
				throw new AssertionError("user:" + i + " counted as new twice");
			}
		}
		assertThat(seen.add(utf8("user:" + n))).isTrue();
		assertThat(seen.size()).isEqualTo(n + 4);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

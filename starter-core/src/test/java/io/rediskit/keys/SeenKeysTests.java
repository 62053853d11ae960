package io.rediskit.keys;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The scan's compact memory of returned keys: exact on fingerprint collisions, for any key length, as it grows. */
class SeenKeysTests {

	@Test
	void keysWhoseFingerprintsCollideAreStillDistinctKeys() {
		// No fingerprint bit counts: every two keys that meet in the table are told apart by their bytes alone.
		SeenKeys seen = new SeenKeys(42, 0);
		int n = 5_000;
		for (int i = 0; i < n; i++) {
			assertThat(seen.add(utf8("k:" + i))).as("k:" + i).isTrue();
		}
		for (int i = 0; i < n; i++) {
			assertThat(seen.add(utf8("k:" + i))).as("k:" + i + " again").isFalse();
		}
		assertThat(seen.add(utf8("k:" + n))).isTrue();
		assertThat(seen.size()).isEqualTo(n + 1);
	}

	@Test
	void aPageKeepsItsNewKeysInOrderOnceEach() {
		SeenKeys seen = new SeenKeys(7, 0);
		assertThat(strings(seen.retainNew(bytes("a", "b", "a", "c")))).containsExactly("a", "b", "c");
		assertThat(strings(seen.retainNew(bytes("c", "d", "b", "e", "d")))).containsExactly("d", "e");
		// Enough pages to grow the table several times while fingerprints collide.
		List<String> all = new ArrayList<>();
		for (int page = 0; page < 30; page++) {
			List<String> keys = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				keys.add("p:" + (page * 150 + i));
			}
			all.addAll(strings(seen.retainNew(bytes(keys.toArray(String[]::new)))));
		}
		assertThat(all).doesNotHaveDuplicates().hasSize(29 * 150 + 200);
		assertThat(seen.size()).isEqualTo(5 + all.size());
	}

	@Test
	void emptyAndHugeKeysAndManyKeysAreRememberedExactly() {
		SeenKeys seen = new SeenKeys();
		assertThat(seen.add(new byte[0])).isTrue();
		assertThat(seen.add(new byte[0])).isFalse();
		assertThat(seen.add(new byte[1])).as("one zero byte is not the empty key").isTrue();
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
		assertThat(seen.add(huge.clone())).as("a huge key still found after the table grew").isFalse();
		assertThat(seen.add(utf8("user:" + n))).isTrue();
		assertThat(seen.size()).isEqualTo(n + 5);
	}

	private static List<byte[]> bytes(String... keys) {
		return Arrays.stream(keys).map(SeenKeysTests::utf8).toList();
	}

	private static List<String> strings(List<byte[]> keys) {
		return keys.stream().map((key) -> new String(key, StandardCharsets.UTF_8)).toList();
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

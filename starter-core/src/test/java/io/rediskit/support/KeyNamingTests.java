package io.rediskit.support;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyNamingTests {

	private final KeyNaming naming = KeyNaming.defaults();

	@Test
	void keysOfOneNameShareTheHashTag() {
		assertThat(this.naming.key("lock", "orders:42")).isEqualTo("rk:lock:{orders:42}");
		assertThat(this.naming.key("lock", "orders:42", "fence")).isEqualTo("rk:lock:{orders:42}:fence");
		assertThat(SlotHash.getSlot(this.naming.key("lock", "orders:42")))
			.isEqualTo(SlotHash.getSlot(this.naming.key("lock", "orders:42", "fence")))
			.isEqualTo(SlotHash.getSlot("orders:42"));
	}

	@Test
	void bracesInNamesCannotMoveTheSlot() {
		String hostile = "x}{victim}";
		String key = this.naming.key("lock", hostile);
		assertThat(key).isEqualTo("rk:lock:{x%7D%7Bvictim%7D}");
		assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot(KeyNaming.encode(hostile)))
			.isEqualTo(SlotHash.getSlot(this.naming.key("lock", hostile, "fence")));
		assertThat(SlotHash.getSlot(key)).isNotEqualTo(SlotHash.getSlot("victim"));
	}

	@Test
	void encodingIsInjective() {
		assertThat(KeyNaming.encode("a{b")).isNotEqualTo(KeyNaming.encode("a%7Bb"));
		assertThat(KeyNaming.encode("100%")).isEqualTo("100%25");
	}

	@Test
	void longNamesAreHashedToABoundedLength() {
		String longName = "k".repeat(10_000);
		String encoded = KeyNaming.encode(longName);
		assertThat(encoded).hasSizeLessThanOrEqualTo(64 + 1 + 64).startsWith("k".repeat(64) + "~");
		assertThat(KeyNaming.encode(longName + "x")).isNotEqualTo(encoded);
		assertThat(KeyNaming.encode("k".repeat(KeyNaming.MAX_ENCODED_NAME_LENGTH)))
			.isEqualTo("k".repeat(KeyNaming.MAX_ENCODED_NAME_LENGTH));
	}

	@Test
	void aLiteralTildeNeverLooksLikeAHashedName() {
		String hashed = KeyNaming.encode("k".repeat(1000));
		assertThat(KeyNaming.encode(hashed)).isNotEqualTo(hashed);
	}

	@Test
	void prefixWithBracesIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new KeyNaming("app{1}:"))
			.withMessageContaining("Key prefix");
	}

}

package io.rediskit.bloom;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The encoding of the native {@code BF.*} commands and the reading of their replies, as RedisBloom documents
 * them. No server with {@code BF.*} is available here: these are unit tests, not a run against RedisBloom.
 */
class NativeBloomCommandsTests {

	@Test
	void reserveIsExplicitAndNonScaling() {
		assertThat(text(NativeBloomCommands.reserve(BloomFilterSpec.of(1_000_000, 0.0001))))
			.containsExactly("0.0001", "1000000", "NONSCALING");
	}

	@Test
	void insertCarriesTheSizingSoAVanishedFilterIsRecreatedWithIt() {
		byte[] binary = { 0, (byte) 0xff, '{' };
		byte[][] args = NativeBloomCommands.insert(BloomFilterSpec.of(500, 0.01),
				List.of("a".getBytes(StandardCharsets.UTF_8), binary, new byte[0]));
		assertThat(text(Arrays.copyOf(args, 6))).containsExactly("CAPACITY", "500", "ERROR", "0.01", "NONSCALING", "ITEMS");
		assertThat(args[6]).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
		assertThat(args[7]).isSameAs(binary);
		assertThat(args[8]).isEmpty();
		assertThat(NativeBloomCommands.exists(List.of(binary))[0]).isSameAs(binary);
	}

	@Test
	void readsFlagsAndInfoFields() {
		assertThat(NativeBloomCommands.readFlags(List.of(1L, 0L, 1L), 3)).containsExactly(true, false, true);
		assertThatIllegalStateException().isThrownBy(() -> NativeBloomCommands.readFlags(List.of(1L), 2));
		List<Object> info = List.of(bytes("Capacity"), 1000L, bytes("Size"), 1480L, bytes("Number of filters"), 1L,
				bytes("Number of items inserted"), 42L, bytes("Expansion rate"), 2L);
		assertThat(NativeBloomCommands.readInfo(info, "Capacity")).isEqualTo(1000L);
		assertThat(NativeBloomCommands.readInfo(info, "Number of items inserted")).isEqualTo(42L);
		assertThat(NativeBloomCommands.readInfo(info, "Missing")).isEqualTo(-1L);
	}

	@Test
	void detectionAsksForEveryCommandItUses() {
		assertThat(NativeBloomCommands.REQUIRED).containsExactly("BF.RESERVE", "BF.INSERT", "BF.MEXISTS", "BF.INFO");
	}

	private static List<String> text(byte[][] args) {
		return Arrays.stream(args).map((arg) -> new String(arg, StandardCharsets.UTF_8)).toList();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	@Test
	void theNativeScriptsTakeTheFilterAndItsMarkAsKeysThenTheCommandsArguments() {
		byte[] key = "rk:bloom:{f}".getBytes(StandardCharsets.UTF_8);
		byte[] mark = "rk:bloom:{f}:complete".getBytes(StandardCharsets.UTF_8);
		byte[] token = "seeding:1".getBytes(StandardCharsets.UTF_8);
		assertThat(strings(NativeBloomCommands.script(key, mark, token,
				NativeBloomCommands.reserve(BloomFilterSpec.of(1000, 0.01)))))
			.containsExactly("rk:bloom:{f}", "rk:bloom:{f}:complete", "seeding:1", "0.01", "1000", "NONSCALING");
		assertThat(strings(NativeBloomCommands.script(key, mark, null, NativeBloomCommands.exists(List.of(bytes("a"))))))
			.containsExactly("rk:bloom:{f}", "rk:bloom:{f}:complete", "a");
	}

	private static List<String> strings(byte[][] values) {
		return Arrays.stream(values).map((value) -> new String(value, StandardCharsets.UTF_8)).toList();
	}

}

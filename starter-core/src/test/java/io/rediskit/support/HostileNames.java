package io.rediskit.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Names as users and attackers send them: braces that would open or close a hash tag, percent signs and
 * already-encoded text, unicode outside the BMP, control characters, and 10 kB strings. Each starts with a
 * plain prefix, so that the keys of one test can be found again with {@code SCAN MATCH prefix*}.
 */
public final class HostileNames {

	private static final String[] PIECES = { "{", "}", "{}", "}{", "{{x}}", "%", "%7B", "%25", "~", "ä", "日本",
			"\uD83D\uDE00", "\u0000", "\n", " ", "*", "?", "[a]", "\\", ":", "rk:lock:{x}", "'", "\"" };

	private HostileNames() {
	}

	/**
	 * @param prefix a plain prefix every name starts with
	 * @param count how many names
	 * @param seed the random seed, so that a failure can be reproduced
	 * @return the names, some 10 kB long
	 */
	public static List<String> generate(String prefix, int count, long seed) {
		Random random = new Random(seed);
		List<String> names = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			StringBuilder name = new StringBuilder(prefix).append(i).append('-');
			int pieces = 1 + random.nextInt(6);
			for (int p = 0; p < pieces; p++) {
				if (random.nextInt(4) == 0) {
					name.appendCodePoint(0x20 + random.nextInt(0x2FFF));
				}
				else {
					name.append(PIECES[random.nextInt(PIECES.length)]);
				}
			}
			if (i % 500 == 0) {
				name.append("{".repeat(5000)).append("}".repeat(5000));
			}
			names.add(name.toString());
		}
		return names;
	}

}

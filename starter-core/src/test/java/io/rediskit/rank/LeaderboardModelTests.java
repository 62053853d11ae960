package io.rediskit.rank;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leaderboard against a naive in-memory model over many random operations (seeded, so a failure replays):
 * every read of the board must equal the model's, ties included ({@link RankOrder}'s rule).
 */
class LeaderboardModelTests {

	@RegisterExtension
	static final RedisTestServer redis = RedisTestServer.start();

	LeaderboardRegistry registry;

	@BeforeEach
	void setUp() {
		redis.flushAll();
		this.registry = new LeaderboardRegistry(redis.scripts(), CommandExecutor.of(redis.connections()),
				KeyNaming.defaults(), List.of(), (name) -> null, java.time.Clock.systemUTC());
	}

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 42, 2024 })
	void everyReadEqualsTheModelOverRandomOperations(long seed) {
		Random random = new Random(seed);
		Leaderboard board = this.registry.create("model" + seed, LeaderboardSpec.of(ZoneOffset.UTC));
		Model model = new Model();
		// Few members and few distinct scores, so that ties are common; a unicode member checks the byte order.
		List<String> members = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			members.add("m" + i);
		}
		members.addAll(List.of("é", "z", "Z", "a b", "ü-1", "ü"));
		for (int op = 0; op < 3000; op++) {
			String member = members.get(random.nextInt(members.size()));
			int score = random.nextInt(11) - 5;
			switch (random.nextInt(6)) {
				case 0 -> {
					board.set(member, score);
					model.scores.put(member, (double) score);
				}
				case 1 -> assertThat(board.add(member, score)).isEqualTo(model.scores.putIfAbsent(member, (double) score) == null);
				case 2, 3 -> assertThat(board.increment(member, score))
					.isEqualTo(model.scores.merge(member, (double) score, Double::sum));
				case 4 -> {
					if (random.nextInt(4) == 0) {
						assertThat(board.remove(member)).isEqualTo(model.scores.remove(member) != null);
					}
				}
				default -> check(random, board, model, members);
			}
		}
		check(random, board, model, members);
	}

	@Test
	void theModelsOrderIsTheDocumentedRule() {
		Model model = new Model();
		model.scores.put("b", 1.0);
		model.scores.put("a", 1.0);
		model.scores.put("é", 1.0);
		model.scores.put("z", 2.0);
		assertThat(model.ordered(RankOrder.LOWEST_FIRST)).containsExactly("a", "b", "é", "z");
		assertThat(model.ordered(RankOrder.HIGHEST_FIRST)).containsExactly("z", "é", "b", "a");
	}

	private static void check(Random random, Leaderboard board, Model model, List<String> members) {
		assertThat(board.size()).isEqualTo(model.scores.size());
		for (RankOrder order : RankOrder.values()) {
			List<RankedMember> expected = model.ranked(order);
			assertThat(board.top(10).stream().map(RankedMember::member))
				.containsExactlyElementsOf(model.ranked(RankOrder.HIGHEST_FIRST).stream().limit(10).map(RankedMember::member).toList());
			int offset = random.nextInt(expected.size() + 3);
			int count = 1 + random.nextInt(12);
			assertThat(board.page(offset, count, order))
				.containsExactlyElementsOf(expected.subList(Math.min(offset, expected.size()),
						Math.min(offset + count, expected.size())));
			String member = members.get(random.nextInt(members.size()));
			Optional<RankedMember> entry = expected.stream().filter((e) -> e.member().equals(member)).findFirst();
			assertThat(board.entry(member, order)).isEqualTo(entry);
			int above = random.nextInt(4);
			int below = random.nextInt(4);
			List<RankedMember> around = entry.map((e) -> {
				int index = (int) e.rank() - 1;
				return expected.subList(Math.max(0, index - above), Math.min(expected.size(), index + below + 1));
			}).orElse(List.of());
			assertThat(board.around(member, above, below, order)).containsExactlyElementsOf(around);
		}
	}

	/** The naive model: a map of scores, sorted on every read. */
	static final class Model {

		final Map<String, Double> scores = new HashMap<>();

		List<String> ordered(RankOrder order) {
			return ranked(order).stream().map(RankedMember::member).toList();
		}

		List<RankedMember> ranked(RankOrder order) {
			Comparator<Map.Entry<String, Double>> lowestFirst = Map.Entry.<String, Double>comparingByValue()
				.thenComparing((a, b) -> compareBytes(a.getKey(), b.getKey()));
			List<Map.Entry<String, Double>> sorted = new ArrayList<>(this.scores.entrySet());
			sorted.sort((order == RankOrder.LOWEST_FIRST) ? lowestFirst : lowestFirst.reversed());
			List<RankedMember> ranked = new ArrayList<>();
			for (int i = 0; i < sorted.size(); i++) {
				ranked.add(new RankedMember(sorted.get(i).getKey(), sorted.get(i).getValue(), i + 1));
			}
			return ranked;
		}

		private static int compareBytes(String a, String b) {
			return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
		}

	}

}

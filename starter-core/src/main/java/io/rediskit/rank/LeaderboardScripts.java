package io.rediskit.rank;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.rediskit.support.LuaScript;

/**
 * The leaderboard's Redis calls, one method per operation: the arguments of each script or command and the
 * reading of its reply. Scores travel as decimal strings in both directions, as Redis keeps them (doubles).
 */
final class LeaderboardScripts {

	static final LuaScript INCREMENT = script("increment");

	static final LuaScript POST = script("post");

	static final LuaScript VOTE = script("vote");

	static final LuaScript PAGE = script("page");

	static final LuaScript ENTRY = script("entry");

	static final LuaScript AROUND = script("around");

	static final LuaScript SIZE = script("size");

	static final String SET = "ZADD";

	static final String REMOVE = "ZREM";

	static final String GROUP_ADD = "SADD";

	static final String GROUP_REMOVE = "SREM";

	static final String DELETE = "UNLINK";

	private static final byte[] NX = bytes("NX");

	private static final byte[] EMPTY = new byte[0];

	private LeaderboardScripts() {
	}

	private static LuaScript script(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/rank/" + name + ".lua");
	}

	/** @return the arguments of {@code ZADD key score member} */
	static byte[][] set(String member, double score) {
		return new byte[][] { number(score), bytes(member) };
	}

	/** @return the arguments of {@code ZADD key NX score member} */
	static byte[][] add(String member, double score) {
		return new byte[][] { NX, number(score), bytes(member) };
	}

	/**
	 * @param board the all-time board
	 * @param periodBoards the current period boards
	 * @param expiresAtMillis when each period board expires
	 * @param member the member
	 * @param delta what to add
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @return the keys and arguments of the increment script
	 */
	static byte[][] increment(byte[] board, List<byte[]> periodBoards, List<Long> expiresAtMillis, String member,
			double delta, @Nullable Long now) {
		List<byte[]> keysAndArgs = new ArrayList<>();
		keysAndArgs.add(board);
		keysAndArgs.addAll(periodBoards);
		keysAndArgs.add(bytes(member));
		keysAndArgs.add(number(delta));
		keysAndArgs.add((now != null) ? number(now) : EMPTY);
		expiresAtMillis.forEach((expiresAt) -> keysAndArgs.add(number(expiresAt)));
		return keysAndArgs.toArray(byte[][]::new);
	}

	/**
	 * The increment script's reply.
	 * @param reply {@code {1, score}} or {@code {-1, expiry}}
	 * @return the new score, or empty when a period board was past its expiry (nothing written)
	 */
	static Optional<Double> readIncrement(@Nullable List<Object> reply) {
		List<Object> values = require(reply);
		if ((Long) values.get(0) < 0) {
			return Optional.empty();
		}
		return Optional.of(readScore(values.get(1)));
	}

	/** @return the refused expiry of a refused increment's reply, in ms since the epoch */
	static long readRefusedExpiry(@Nullable List<Object> reply) {
		return Long.parseLong(string(require(reply).get(1)));
	}

	/**
	 * @param board the board
	 * @param posted the item's posting key
	 * @param item the item
	 * @param windowMillis how long it takes votes
	 * @param now the time in ms, pinned by tests; {@code null} for the server's
	 * @return the keys and arguments of the post script
	 */
	static byte[][] post(byte[] board, byte[] posted, String item, long windowMillis, @Nullable Long now) {
		return new byte[][] { board, posted, bytes(item), number(windowMillis), (now != null) ? number(now) : EMPTY };
	}

	/**
	 * @param board the board
	 * @param posted the item's posting key
	 * @param voters the item's voters
	 * @param item the item
	 * @param voter who votes
	 * @param weightSeconds what a vote adds
	 * @return the keys and arguments of the vote script
	 */
	static byte[][] vote(byte[] board, byte[] posted, byte[] voters, String item, String voter, double weightSeconds) {
		return new byte[][] { board, posted, voters, bytes(item), bytes(voter), number(weightSeconds) };
	}

	static VoteResult readVote(@Nullable Long reply) {
		long value = (reply != null) ? reply : -1;
		return (value == 1) ? VoteResult.COUNTED : (value == 0) ? VoteResult.ALREADY_VOTED : VoteResult.CLOSED;
	}

	/**
	 * @param view where the board is read
	 * @param first the first index
	 * @param last the last index
	 * @param order the order
	 * @return the keys and arguments of the page script
	 */
	static byte[][] page(BoardKeys view, long first, long last, RankOrder order) {
		return view.keysAndArgs(number(first), number(last), highestFirst(order));
	}

	/**
	 * @param entries member, score, member, score, ...
	 * @param firstRank the rank of the first
	 * @return the entries, ranked from {@code firstRank}
	 */
	static List<RankedMember> readEntries(List<Object> entries, int from, long firstRank) {
		List<RankedMember> members = new ArrayList<>((entries.size() - from) / 2);
		long rank = firstRank;
		for (int i = from; i + 1 < entries.size(); i += 2) {
			members.add(new RankedMember(string(entries.get(i)), readScore(entries.get(i + 1)), rank++));
		}
		return members;
	}

	static byte[][] entry(BoardKeys view, String member, RankOrder order) {
		return view.keysAndArgs(bytes(member), highestFirst(order));
	}

	static Optional<RankedMember> readEntry(String member, @Nullable List<Object> reply) {
		if (reply == null || reply.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of(new RankedMember(member, readScore(reply.get(1)), (Long) reply.get(0) + 1));
	}

	static byte[][] around(BoardKeys view, String member, int above, int below, RankOrder order) {
		return view.keysAndArgs(bytes(member), number(above), number(below), highestFirst(order));
	}

	static List<RankedMember> readAround(@Nullable List<Object> reply) {
		if (reply == null || reply.isEmpty()) {
			return List.of();
		}
		return readEntries(reply, 1, (Long) reply.get(0) + 1);
	}

	static byte[][] size(BoardKeys view) {
		return view.keysAndArgs();
	}

	/**
	 * A score as Redis writes it: a decimal, or {@code inf}/{@code -inf} after an overflow.
	 * @param value the reply's bytes
	 * @return the score
	 */
	static double readScore(@Nullable Object value) {
		String text = string(value);
		return switch (text) {
			case "inf", "+inf" -> Double.POSITIVE_INFINITY;
			case "-inf" -> Double.NEGATIVE_INFINITY;
			default -> Double.parseDouble(text);
		};
	}

	static byte[] number(double value) {
		if (!Double.isFinite(value)) {
			throw new IllegalArgumentException("A score must be a finite number, was " + value);
		}
		if (value == Math.rint(value) && Math.abs(value) < 1e15) {
			return number((long) value);
		}
		return bytes(Double.toString(value));
	}

	static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] highestFirst(RankOrder order) {
		return bytes((order == RankOrder.HIGHEST_FIRST) ? "1" : "0");
	}

	private static String string(@Nullable Object value) {
		if (value instanceof byte[] raw) {
			return new String(raw, StandardCharsets.UTF_8);
		}
		return String.valueOf(value);
	}

	private static List<Object> require(@Nullable List<Object> reply) {
		if (reply == null || reply.size() < 2) {
			throw new IllegalStateException("Unexpected reply from a leaderboard script: " + reply);
		}
		return reply;
	}

}

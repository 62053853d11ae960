package io.rediskit.geo;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.rediskit.support.LuaScript;
import org.jspecify.annotations.Nullable;

/**
 * The geo scripts, the keys and arguments each takes and the reading of their replies. An index in one geo set
 * (unsharded, or one region) uses the {@code _set} scripts; a cell-sharded index the {@code _cells} scripts,
 * which keep a hash of member to cell; both search with {@code search}.
 */
final class GeoScripts {

	static final LuaScript PUT_SET = script("put_set");

	static final LuaScript PUT_CELLS = script("put_cells");

	static final LuaScript REMOVE_SET = script("remove_set");

	static final LuaScript REMOVE_CELLS = script("remove_cells");

	static final LuaScript POSITIONS_SET = script("positions_set");

	static final LuaScript POSITIONS_CELLS = script("positions_cells");

	static final LuaScript SEARCH = script("search");

	static final LuaScript SWEEP_SET = script("sweep_set");

	static final LuaScript SWEEP_CELLS = script("sweep_cells");

	private static final byte[] EMPTY = new byte[0];

	private static final byte[] METERS = utf8("m");

	private static final byte[] WITH_POSITIONS = utf8("1");

	private GeoScripts() {
	}

	private static LuaScript script(String name) {
		return LuaScript.fromClasspath("META-INF/redis-kit/scripts/geo/" + name + ".lua");
	}

	/** One script call: the script, how many of the values are keys, the keys and then the arguments. */
	record Call(LuaScript script, int numKeys, byte[][] keysAndArgs) {
	}

	static Call putSet(byte[] set, byte[] updates, long ttlMillis, @Nullable Long now, int sweepBatch,
			Collection<Map.Entry<String, GeoPoint>> members) {
		List<byte[]> values = new ArrayList<>(5 + 3 * members.size());
		values.add(set);
		values.add(updates);
		values.add(number(ttlMillis));
		values.add(time(now));
		values.add(number(sweepBatch));
		for (Map.Entry<String, GeoPoint> member : members) {
			values.add(coordinate(member.getValue().longitude()));
			values.add(coordinate(member.getValue().latitude()));
			values.add(utf8(member.getKey()));
		}
		return new Call(PUT_SET, 2, values.toArray(byte[][]::new));
	}

	static Call putCells(byte[] members, byte[] updates, String cellPrefix, GeoCells cells, long ttlMillis,
			@Nullable Long now, int sweepBatch, Collection<Map.Entry<String, GeoPoint>> entries) {
		List<byte[]> values = new ArrayList<>(6 + 4 * entries.size());
		values.add(members);
		values.add(updates);
		values.add(number(ttlMillis));
		values.add(time(now));
		values.add(number(sweepBatch));
		values.add(utf8(cellPrefix));
		for (Map.Entry<String, GeoPoint> entry : entries) {
			values.add(utf8(cells.cellOf(entry.getValue())));
			values.add(coordinate(entry.getValue().longitude()));
			values.add(coordinate(entry.getValue().latitude()));
			values.add(utf8(entry.getKey()));
		}
		return new Call(PUT_CELLS, 2, values.toArray(byte[][]::new));
	}

	static Call removeSet(byte[] set, byte[] updates, String member) {
		return new Call(REMOVE_SET, 2, new byte[][] { set, updates, utf8(member) });
	}

	static Call removeCells(byte[] members, byte[] updates, String cellPrefix, String member) {
		return new Call(REMOVE_CELLS, 2, new byte[][] { members, updates, utf8(cellPrefix), utf8(member) });
	}

	static Call positionsSet(byte[] set, byte[] updates, long ttlMillis, @Nullable Long now, List<String> members) {
		List<byte[]> values = new ArrayList<>(4 + members.size());
		values.add(set);
		values.add(updates);
		values.add(number(ttlMillis));
		values.add(time(now));
		members.forEach((member) -> values.add(utf8(member)));
		return new Call(POSITIONS_SET, 2, values.toArray(byte[][]::new));
	}

	static Call positionsCells(byte[] members, byte[] updates, String cellPrefix, long ttlMillis, @Nullable Long now,
			List<String> names) {
		List<byte[]> values = new ArrayList<>(5 + names.size());
		values.add(members);
		values.add(updates);
		values.add(number(ttlMillis));
		values.add(time(now));
		values.add(utf8(cellPrefix));
		names.forEach((member) -> values.add(utf8(member)));
		return new Call(POSITIONS_CELLS, 2, values.toArray(byte[][]::new));
	}

	static Call search(List<byte[]> sets, byte[] updates, long ttlMillis, @Nullable Long now, GeoPoint center,
			GeoQuery query) {
		List<byte[]> values = new ArrayList<>(sets.size() + 12);
		values.addAll(sets);
		values.add(updates);
		values.add(number(ttlMillis));
		values.add(time(now));
		values.add(coordinate(center.longitude()));
		values.add(coordinate(center.latitude()));
		values.add(number(query.limit()));
		values.add(utf8((query.order() == GeoOrder.NEAREST_FIRST) ? "ASC" : "DESC"));
		values.add(query.positions() ? WITH_POSITIONS : EMPTY);
		if (query.isCircle()) {
			values.add(utf8("BYRADIUS"));
			values.add(coordinate(query.unit().toMeters(query.radius())));
		}
		else {
			values.add(utf8("BYBOX"));
			values.add(coordinate(query.unit().toMeters(query.width())));
			values.add(coordinate(query.unit().toMeters(query.height())));
		}
		values.add(METERS);
		return new Call(SEARCH, sets.size() + 1, values.toArray(byte[][]::new));
	}

	/** The command of a search of one set without expiry: no script, one {@code GEOSEARCH}. */
	static final String GEOSEARCH = "GEOSEARCH";

	/**
	 * The arguments after the key of {@code GEOSEARCH key FROMLONLAT lon lat BYRADIUS r m | BYBOX w h m ASC|DESC
	 * COUNT n WITHDIST [WITHCOORD]}, distances in meters, as {@code search.lua} sends it; {@code WITHCOORD} only
	 * when the query wants positions.
	 */
	static byte[][] geosearch(GeoPoint center, GeoQuery query) {
		List<byte[]> values = new ArrayList<>(13);
		values.add(utf8("FROMLONLAT"));
		values.add(coordinate(center.longitude()));
		values.add(coordinate(center.latitude()));
		if (query.isCircle()) {
			values.add(utf8("BYRADIUS"));
			values.add(coordinate(query.unit().toMeters(query.radius())));
		}
		else {
			values.add(utf8("BYBOX"));
			values.add(coordinate(query.unit().toMeters(query.width())));
			values.add(coordinate(query.unit().toMeters(query.height())));
		}
		values.add(METERS);
		values.add(utf8((query.order() == GeoOrder.NEAREST_FIRST) ? "ASC" : "DESC"));
		values.add(utf8("COUNT"));
		values.add(number(query.limit()));
		values.add(utf8("WITHDIST"));
		if (query.positions()) {
			values.add(utf8("WITHCOORD"));
		}
		return values.toArray(byte[][]::new);
	}

	/**
	 * Reads a {@code GEOSEARCH ... WITHDIST [WITHCOORD]} reply: per match {@code [member, distance, [lon, lat]]},
	 * or {@code [member, distance]} without positions.
	 */
	static void readGeosearch(@Nullable List<Object> reply, GeoUnit unit, List<GeoMatch> into) {
		if (reply == null) {
			throw new IllegalStateException("Unexpected reply from GEOSEARCH: null");
		}
		for (Object entry : reply) {
			List<?> match = (List<?>) entry;
			GeoPoint position = null;
			if (match.size() > 2) {
				List<?> coordinates = (List<?>) match.get(2);
				position = new GeoPoint(clampLongitude(decimal(coordinates.get(0))), decimal(coordinates.get(1)));
			}
			into.add(new GeoMatch(new String((byte[]) match.get(0), StandardCharsets.UTF_8),
					unit.fromMeters(decimal(match.get(1))), position));
		}
	}

	/** A number of a reply: a double where the connection speaks RESP3, a bulk string where it speaks RESP2. */
	private static double decimal(Object value) {
		return (value instanceof Number number) ? number.doubleValue() : parse((byte[]) value);
	}

	static Call sweepSet(byte[] set, byte[] updates, long ttlMillis, @Nullable Long now, int batch) {
		return new Call(SWEEP_SET, 2, new byte[][] { set, updates, number(ttlMillis), time(now), number(batch) });
	}

	static Call sweepCells(byte[] members, byte[] updates, String cellPrefix, long ttlMillis, @Nullable Long now,
			int batch) {
		return new Call(SWEEP_CELLS, 2,
				new byte[][] { members, updates, number(ttlMillis), time(now), number(batch), utf8(cellPrefix) });
	}

	/** Reads {@code positions_*}: two strings per member, both empty for none. */
	static List<@Nullable GeoPoint> readPositions(@Nullable List<Object> reply, int members) {
		if (reply == null || reply.size() != 2 * members) {
			throw new IllegalStateException("Unexpected reply from the geo positions script: " + reply);
		}
		List<@Nullable GeoPoint> positions = new ArrayList<>(members);
		for (int i = 0; i < reply.size(); i += 2) {
			byte[] longitude = (byte[]) reply.get(i);
			positions.add((longitude.length == 0) ? null
					: new GeoPoint(clampLongitude(parse(longitude)), parse((byte[]) reply.get(i + 1))));
		}
		return positions;
	}

	/**
	 * Reads {@code search}: member, distance in meters, longitude, latitude per match; member and distance only
	 * where the query wants no positions.
	 */
	static void readMatches(@Nullable List<Object> reply, GeoUnit unit, boolean positions, List<GeoMatch> into) {
		int stride = positions ? 4 : 2;
		if (reply == null || reply.size() % stride != 0) {
			throw new IllegalStateException("Unexpected reply from the geo search script: " + reply);
		}
		for (int i = 0; i < reply.size(); i += stride) {
			into.add(new GeoMatch(new String((byte[]) reply.get(i), StandardCharsets.UTF_8),
					unit.fromMeters(parse((byte[]) reply.get(i + 1))), positions
							? new GeoPoint(clampLongitude(parse((byte[]) reply.get(i + 2))), parse((byte[]) reply.get(i + 3)))
							: null));
		}
	}

	private static double clampLongitude(double longitude) {
		// Decoding a geohash can land a hair outside the range at the antimeridian.
		return Math.max(-180, Math.min(180, longitude));
	}

	private static double parse(byte[] value) {
		return Double.parseDouble(new String(value, StandardCharsets.US_ASCII));
	}

	private static byte[] time(@Nullable Long now) {
		return (now != null) ? number(now) : EMPTY;
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] coordinate(double value) {
		return Double.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

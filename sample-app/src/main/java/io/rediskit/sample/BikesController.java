package io.rediskit.sample;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.geo.GeoIndex;
import io.rediskit.geo.GeoIndexRegistry;
import io.rediskit.geo.GeoMatch;
import io.rediskit.geo.GeoPoint;
import io.rediskit.geo.GeoQuery;
import io.rediskit.geo.GeoUnit;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * "Bikes near me" over the {@code bikes} geo index of {@code application.yml} (sharded by geohash cell, a
 * position valid for 5 minutes after the bike last reported it):
 * <ul>
 * <li>{@code PUT /api/bikes/{id}?lat=48.8566&lon=2.3522}: a bike reports where it is (a move replaces its
 * position, in one script call);</li>
 * <li>{@code GET /api/bikes/near?lat=48.857&lon=2.35&radius=500&limit=10}: the nearest bikes within
 * {@code radius} meters, nearest first, with their distance; a bike that has not reported for 5 minutes is not
 * listed;</li>
 * <li>{@code GET /api/bikes/{id}}, {@code DELETE /api/bikes/{id}}: one bike's position; taking a bike out.</li>
 * </ul>
 * A position outside the range Redis indexes, or a search beyond the index's bounds, answers {@code 400}.
 */
@RestController
@RequestMapping("/api/bikes")
public class BikesController {

	private final GeoIndex bikes;

	BikesController(GeoIndexRegistry indexes) {
		this.bikes = indexes.get("bikes");
	}

	@PutMapping("/{id}")
	public ResponseEntity<Map<String, Object>> report(@PathVariable String id, @RequestParam double lat,
			@RequestParam double lon) {
		GeoPoint position;
		try {
			position = GeoPoint.ofLatLon(lat, lon);
		}
		catch (IllegalArgumentException ex) {
			return badRequest("lat must be within +-85.05112878 and lon within +-180 degrees");
		}
		this.bikes.put(id, position);
		return ResponseEntity.ok(bike(id, position));
	}

	@GetMapping("/near")
	public ResponseEntity<Map<String, Object>> near(@RequestParam double lat, @RequestParam double lon,
			@RequestParam(defaultValue = "500") double radius, @RequestParam(defaultValue = "10") int limit) {
		GeoQuery query;
		try {
			query = GeoQuery.around(GeoPoint.ofLatLon(lat, lon)).withinRadius(radius, GeoUnit.METERS).limit(limit);
		}
		catch (IllegalArgumentException ex) {
			return badRequest("lat must be within +-85.05112878, lon within +-180, radius and limit positive");
		}
		List<GeoMatch> matches;
		try {
			matches = this.bikes.nearby(query);
		}
		catch (IllegalArgumentException ex) {
			return badRequest("radius may be at most " + (long) this.bikes.spec().maxRadiusMeters()
					+ " m and limit at most " + this.bikes.spec().maxLimit());
		}
		List<Map<String, Object>> found = matches.stream().map((match) -> {
			Map<String, Object> bike = bike(match.member(), match.position());
			bike.put("meters", Math.round(match.distance() * 10) / 10.0);
			return bike;
		}).toList();
		return ResponseEntity.ok(Map.of("count", found.size(), "bikes", found));
	}

	@GetMapping("/{id}")
	public ResponseEntity<Map<String, Object>> find(@PathVariable String id) {
		GeoPoint position = this.bikes.position(id);
		return (position != null) ? ResponseEntity.ok(bike(id, position))
				: ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("id", id));
	}

	@DeleteMapping("/{id}")
	public ResponseEntity<Void> remove(@PathVariable String id) {
		return this.bikes.remove(id) ? ResponseEntity.noContent().build() : ResponseEntity.notFound().build();
	}

	private static Map<String, Object> bike(String id, GeoPoint position) {
		Map<String, Object> bike = new LinkedHashMap<>();
		bike.put("id", id);
		bike.put("lat", position.latitude());
		bike.put("lon", position.longitude());
		return bike;
	}

	private static ResponseEntity<Map<String, Object>> badRequest(String reason) {
		return ResponseEntity.badRequest().body(Map.of("reason", reason));
	}

}

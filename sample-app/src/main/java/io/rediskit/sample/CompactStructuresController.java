package io.rediskit.sample;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.CheckInCalendar;
import io.rediskit.bloom.BloomFilter;
import io.rediskit.bloom.BloomFilterRegistry;
import io.rediskit.bloom.BloomFilterSeed;
import io.rediskit.bloom.BloomGuard;
import io.rediskit.bloom.BloomGuardSpec;
import io.rediskit.counter.UniqueCounter;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.lock.LockRegistry;
import io.rediskit.support.CommandExecutor;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.RetentionPassedException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The compact structures of {@code application.yml}, over HTTP:
 * <ul>
 * <li>{@code POST /api/users?name=ada}: registration that rejects a taken name; the Bloom filter answers
 * "never seen" without the user table, which is asked only when the filter says "maybe".</li>
 * <li>{@code GET /api/home}: a page whose unique visitors today (by {@code X-Client}) a HyperLogLog counts.</li>
 * <li>{@code POST /api/checkins/{user}}, {@code GET /api/checkins/{user}?month=2024-02}: a check-in calendar; a
 * {@code date} whose month is past the calendar's retention is refused with 400.</li>
 * <li>{@code GET /api/products/{id}}: a Bloom guard in front of a slow catalog; unknown ids never reach it.</li>
 * </ul>
 */
@RestController
@RequestMapping("/api")
public class CompactStructuresController {

	private final BloomFilter usernames;

	private final Set<String> users = ConcurrentHashMap.newKeySet();

	private final UniqueCounter homeVisitors;

	private final CheckInCalendar checkIns;

	private final ProductCatalog catalog;

	private final BloomGuard products;

	private final Clock clock;

	CompactStructuresController(BloomFilterRegistry filters, UniqueCounterRegistry counters, BitmapRegistry bitmaps,
			LockRegistry locks, CommandExecutor commands, KeyNaming keyNaming, ProductCatalog catalog) {
		this.usernames = filters.get("usernames");
		// The table is the source of the filter: seeded from it when a check finds the filter not complete (never
		// seeded yet, or lost in Redis), once across instances.
		filters.setSeed(BloomFilterSeed.of("usernames", () -> List.copyOf(this.users)));
		this.homeVisitors = counters.get("home-visitors");
		this.checkIns = bitmaps.calendar("daily-check-in");
		this.catalog = catalog;
		this.products = new BloomGuard(filters.get("products"), commands, keyNaming, locks, BloomGuardSpec.defaults());
		this.clock = Clock.systemUTC();
	}

	@PostMapping("/users")
	public ResponseEntity<Map<String, Object>> register(@RequestParam String name) {
		// "Never seen" from a complete filter is certain: no table lookup. "Maybe" is checked against the table
		// (about 1% are false), and so is every name while the filter is not complete: lost in Redis, it would
		// answer "never seen" for names that are taken.
		boolean maybeTaken = this.usernames.check(name).mayExist();
		if (maybeTaken && this.users.contains(name)) {
			return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("name", name, "registered", false,
					"reason", "taken"));
		}
		this.users.add(name);
		this.usernames.add(name);
		return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("name", name, "registered", true,
				"tableChecked", maybeTaken));
	}

	@GetMapping("/home")
	public Map<String, Object> home(@RequestHeader(name = RateLimitController.CLIENT,
			defaultValue = RateLimitController.ANONYMOUS) String client) {
		Instant now = this.clock.instant();
		this.homeVisitors.add(client, now);
		LocalDate today = LocalDate.ofInstant(now, this.homeVisitors.spec().zone());
		return Map.of("page", "home", "uniqueVisitorsToday", this.homeVisitors.count(today, today));
	}

	@PostMapping("/checkins/{user}")
	public ResponseEntity<Map<String, Object>> checkIn(@PathVariable String user,
			@RequestParam(required = false) LocalDate date) {
		LocalDate day = (date != null) ? date : LocalDate.now(this.clock.withZone(this.checkIns.spec().zone()));
		boolean added;
		try {
			added = this.checkIns.checkIn(user, day);
		}
		catch (RetentionPassedException ex) {
			// Redis would drop the month as it is written: say so instead of answering "new".
			return ResponseEntity.badRequest().body(Map.of("reason", "the date's month is past the calendar's retention",
					"keptUntil", ex.getExpiredAt().toString()));
		}
		return ResponseEntity.ok(Map.of("user", user, "date", day.toString(), "new", added, "streak",
				this.checkIns.streak(user, day)));
	}

	@GetMapping("/checkins/{user}")
	public Map<String, Object> calendar(@PathVariable String user, @RequestParam YearMonth month) {
		List<Boolean> days = this.checkIns.calendar(user, month);
		return Map.of("user", user, "month", month.toString(), "days", days,
				"count", this.checkIns.countInMonth(user, month),
				"first", this.checkIns.firstCheckIn(user, month).map(LocalDate::toString).orElse(""));
	}

	@GetMapping("/products/{id}")
	public ResponseEntity<Map<String, Object>> product(@PathVariable String id) {
		return this.products.load(id, this.catalog::find)
			.map((name) -> ResponseEntity.ok(Map.<String, Object>of("id", id, "name", name,
					"catalogLookups", this.catalog.lookups())))
			.orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND)
				.body(Map.of("id", id, "catalogLookups", this.catalog.lookups())));
	}

	@DeleteMapping("/products/{id}")
	public ResponseEntity<Void> deleteProduct(@PathVariable String id) {
		this.catalog.delete(id);
		return ResponseEntity.noContent().build();
	}

}

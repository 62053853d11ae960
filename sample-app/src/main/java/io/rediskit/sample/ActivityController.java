package io.rediskit.sample;

import java.time.Clock;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.rediskit.bitmap.BitmapRegistry;
import io.rediskit.bitmap.DailyActivity;
import io.rediskit.bitmap.Retention;
import io.rediskit.counter.UniqueCounterRegistry;
import io.rediskit.counter.UniqueCounterSpec;
import io.rediskit.support.RetentionPassedException;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Daily active users and page visitors, over HTTP:
 * <ul>
 * <li>{@code POST /api/activity/{userId}?date=2024-02-29}: marks a numeric user id active (today by default); an id
 * above the activity's {@code max-user-id}, or a day past its retention, is refused with 400.</li>
 * <li>{@code GET /api/activity/dau?date=...}: the day's active users.</li>
 * <li>{@code GET /api/activity/range?from=...&to=...}: users active on every day and on any day of a range.</li>
 * <li>{@code GET /api/activity/retention?date=...&after=7}: of the day's users, how many came back that many days
 * later.</li>
 * <li>{@code POST /api/pages/{page}/visits} (by {@code X-Client}) and {@code GET /api/pages/visitors?pages=home,pricing}:
 * unique visitors of pages, and of several pages together, counted without copying the counters.</li>
 * </ul>
 */
@RestController
@RequestMapping("/api")
public class ActivityController {

	static final List<String> PAGES = List.of("home", "pricing", "docs");

	private final DailyActivity dau;

	private final UniqueCounterRegistry counters;

	private final Clock clock = Clock.systemUTC();

	ActivityController(BitmapRegistry bitmaps, UniqueCounterRegistry counters) {
		this.dau = bitmaps.activity("dau");
		this.counters = counters;
		for (String page : PAGES) {
			counters.create("page-" + page, UniqueCounterSpec.daily(this.dau.spec().zone()));
		}
	}

	@PostMapping("/activity/{userId}")
	public ResponseEntity<Map<String, Object>> markActive(@PathVariable long userId,
			@RequestParam(required = false) LocalDate date) {
		LocalDate day = (date != null) ? date : today();
		try {
			return ResponseEntity.ok(Map.of("userId", userId, "date", day.toString(), "new", this.dau.markActive(userId, day)));
		}
		catch (RetentionPassedException ex) {
			return ResponseEntity.badRequest().body(Map.of("reason", "the day is past the activity's retention"));
		}
		catch (IllegalArgumentException ex) {
			return ResponseEntity.badRequest()
				.body(Map.of("reason", "user ids are numbers from 0 to " + this.dau.spec().maxUserId()));
		}
	}

	@GetMapping("/activity/dau")
	public Map<String, Object> dau(@RequestParam(required = false) LocalDate date) {
		LocalDate day = (date != null) ? date : today();
		return Map.of("date", day.toString(), "activeUsers", this.dau.count(day));
	}

	@GetMapping("/activity/range")
	public Map<String, Object> range(@RequestParam LocalDate from, @RequestParam LocalDate to) {
		Map<String, Object> answer = new LinkedHashMap<>();
		answer.put("from", from.toString());
		answer.put("to", to.toString());
		answer.put("activeEveryDay", this.dau.countActiveEveryDay(from, to));
		answer.put("activeAnyDay", this.dau.countActiveAnyDay(from, to));
		return answer;
	}

	@GetMapping("/activity/retention")
	public Map<String, Object> retention(@RequestParam LocalDate date, @RequestParam(defaultValue = "1") int after) {
		Retention retention = this.dau.retention(date, after);
		return Map.of("date", date.toString(), "after", after, "cohort", retention.cohort(), "retained",
				retention.retained(), "rate", retention.rate());
	}

	@PostMapping("/pages/{page}/visits")
	public ResponseEntity<Map<String, Object>> visit(@PathVariable String page,
			@RequestHeader(name = RateLimitController.CLIENT,
					defaultValue = RateLimitController.ANONYMOUS) String client) {
		if (!PAGES.contains(page)) {
			return ResponseEntity.notFound().build();
		}
		this.counters.get("page-" + page).add(client);
		return ResponseEntity.ok(Map.of("page", page, "uniqueVisitors", this.counters.get("page-" + page).count()));
	}

	@GetMapping("/pages/visitors")
	public ResponseEntity<Map<String, Object>> visitors(@RequestParam List<String> pages) {
		if (pages.isEmpty() || !PAGES.containsAll(pages)) {
			return ResponseEntity.badRequest().body(Map.of("reason", "pages are among " + PAGES));
		}
		String[] names = pages.stream().map((page) -> "page-" + page).toArray(String[]::new);
		return ResponseEntity.ok(Map.of("pages", pages, "uniqueVisitors", this.counters.countUnion(names)));
	}

	private LocalDate today() {
		return LocalDate.now(this.clock.withZone(this.dau.spec().zone()));
	}

}

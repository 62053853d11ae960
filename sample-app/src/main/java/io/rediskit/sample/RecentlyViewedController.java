package io.rediskit.sample;

import java.util.List;
import java.util.Map;

import io.rediskit.recent.RecentItems;
import io.rediskit.recent.RecentItemsRegistry;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * "Recently viewed" products over the {@code viewed-products} list of {@code application.yml} (the user in
 * {@code X-Client}):
 * <ul>
 * <li>{@code POST /api/viewed/{product}}: records a view, one round trip.</li>
 * <li>{@code GET /api/viewed}: the user's recently viewed products, newest first.</li>
 * <li>{@code GET /api/viewed/trending}: the most viewed products of the last hour, all users.</li>
 * </ul>
 */
@RestController
@RequestMapping("/api/viewed")
public class RecentlyViewedController {

	private final RecentItems viewed;

	RecentlyViewedController(RecentItemsRegistry recentItems) {
		this.viewed = recentItems.get("viewed-products");
	}

	@PostMapping("/{product}")
	public Map<String, Object> view(@PathVariable String product,
			@RequestHeader(name = RateLimitController.CLIENT, defaultValue = RateLimitController.ANONYMOUS) String user) {
		return Map.of("product", product, "viewsInThisBucket", this.viewed.view(user, product));
	}

	@GetMapping
	public List<String> recent(
			@RequestHeader(name = RateLimitController.CLIENT, defaultValue = RateLimitController.ANONYMOUS) String user) {
		return this.viewed.recent(user, this.viewed.spec().capacity());
	}

	@GetMapping("/trending")
	public List<Map<String, Object>> trending(@RequestParam(defaultValue = "10") int count) {
		return this.viewed.trending(Math.max(1, Math.min(count, 100))).stream()
			.map((item) -> Map.<String, Object>of("product", item.item(), "views", item.views()))
			.toList();
	}

}

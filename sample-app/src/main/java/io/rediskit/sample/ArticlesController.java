package io.rediskit.sample;

import java.util.List;
import java.util.Map;

import io.rediskit.rank.Board;
import io.rediskit.rank.Leaderboard;
import io.rediskit.rank.LeaderboardRegistry;
import io.rediskit.rank.RankedMember;
import io.rediskit.rank.VoteResult;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * "Most popular articles" over the {@code articles} leaderboard of {@code application.yml}:
 * <ul>
 * <li>{@code POST /api/articles/{id}?category=databases}: posts an article (its posting time is its first score)
 * and files it under a category.</li>
 * <li>{@code POST /api/articles/{id}/votes} (voter in {@code X-Client}): one vote per voter per article, while
 * the article is open for votes; {@code 409} for a second vote, {@code 410} once voting has closed.</li>
 * <li>{@code GET /api/articles/popular?count=10}, {@code GET /api/articles/popular?category=databases}: the most
 * popular articles, overall or of a category (a group view the server computes and caches briefly).</li>
 * </ul>
 */
@RestController
@RequestMapping("/api/articles")
public class ArticlesController {

	private final Leaderboard articles;

	ArticlesController(LeaderboardRegistry leaderboards) {
		this.articles = leaderboards.get("articles");
	}

	@PostMapping("/{id}")
	public ResponseEntity<Map<String, Object>> post(@PathVariable String id,
			@RequestParam(required = false) String category) {
		boolean posted = this.articles.post(id);
		if (category != null) {
			this.articles.addToGroup(category, List.of(id));
		}
		return ResponseEntity.status(posted ? HttpStatus.CREATED : HttpStatus.OK)
			.body(Map.of("article", id, "posted", posted));
	}

	@PostMapping("/{id}/votes")
	public ResponseEntity<Map<String, Object>> vote(@PathVariable String id,
			@RequestHeader(name = RateLimitController.CLIENT, defaultValue = RateLimitController.ANONYMOUS) String voter) {
		VoteResult result = this.articles.vote(id, voter);
		HttpStatus status = switch (result) {
			case COUNTED -> HttpStatus.OK;
			case ALREADY_VOTED -> HttpStatus.CONFLICT;
			case CLOSED -> HttpStatus.GONE;
		};
		return ResponseEntity.status(status).body(Map.of("article", id, "result", result.name()));
	}

	@GetMapping("/popular")
	public List<Map<String, Object>> popular(@RequestParam(defaultValue = "10") int count,
			@RequestParam(required = false) String category) {
		Board board = (category != null) ? this.articles.group(category) : this.articles;
		return board.top(Math.max(1, Math.min(count, 100))).stream().map(ArticlesController::view).toList();
	}

	private static Map<String, Object> view(RankedMember entry) {
		return Map.of("article", entry.member(), "rank", entry.rank(), "score", entry.score());
	}

}

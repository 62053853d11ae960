package io.rediskit.sample;

import java.util.LinkedHashMap;
import java.util.Map;

import io.rediskit.queue.BatchProgress;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Flows and batches in the sample ({@link Publishing}): {@code POST /books/{book}/export?chapters=3} enqueues a flow
 * (a chapter per child, the book as the parent) and {@code GET /books/{book}} shows whether it is assembled, with its
 * pages; {@code POST /newsletters/{id}?recipients=5} enqueues a batch and {@code GET /newsletters/{id}} shows its
 * progress and whether its {@code onComplete} callback ran.
 */
@RestController
public class PublishingController {

	private final Publishing publishing;

	PublishingController(Publishing publishing) {
		this.publishing = publishing;
	}

	@PostMapping("/books/{book}/export")
	Map<String, String> export(@PathVariable String book, @RequestParam(defaultValue = "3") int chapters) {
		return Map.of("book", book, "parent", this.publishing.exportBook(book, Math.max(1, Math.min(chapters, 100))));
	}

	@GetMapping("/books/{book}")
	Map<String, Object> book(@PathVariable String book) {
		Integer pages = this.publishing.pages(book);
		return (pages != null) ? Map.of("book", book, "status", "ASSEMBLED", "pages", pages)
				: Map.of("book", book, "status", "RENDERING");
	}

	@PostMapping("/newsletters/{id}")
	Map<String, String> send(@PathVariable String id, @RequestParam(defaultValue = "5") int recipients) {
		return Map.of("batch", this.publishing.sendNewsletter(id, Math.max(1, Math.min(recipients, 1000))));
	}

	@GetMapping("/newsletters/{id}")
	Map<String, Object> newsletter(@PathVariable String id) {
		Map<String, Object> answer = new LinkedHashMap<>();
		BatchProgress progress = this.publishing.progress(id);
		if (progress != null) {
			answer.put("total", progress.total());
			answer.put("succeeded", progress.succeeded());
			answer.put("failed", progress.failed());
			answer.put("pending", progress.pending());
		}
		String callback = this.publishing.completedBy(id);
		answer.put("completedBy", (callback != null) ? callback : "");
		return answer;
	}

}

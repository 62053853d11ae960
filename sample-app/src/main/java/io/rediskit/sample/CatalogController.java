package io.rediskit.sample;

import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The cached product pages:
 * <ul>
 * <li>{@code GET /api/catalog/{id}}: the product through {@code @Cacheable}; {@code catalogLookups} shows how
 * often the slow catalog was asked (once per id until the entry expires or is evicted, whatever the number of
 * instances and concurrent requests). 404 for an unknown id, which is cached too, for 30 s.</li>
 * <li>{@code PUT /api/catalog/{id}?name=...}: renames the product; the next read loads it again on every
 * instance.</li>
 * </ul>
 */
@RestController
class CatalogController {

	private final ProductPages pages;

	CatalogController(ProductPages pages) {
		this.pages = pages;
	}

	@GetMapping("/api/catalog/{id}")
	ResponseEntity<Map<String, Object>> product(@PathVariable String id) {
		Product product = this.pages.find(id);
		if (product == null) {
			return ResponseEntity.status(404).body(Map.of("catalogLookups", this.pages.catalogLookups()));
		}
		return ResponseEntity.ok(Map.of("id", product.id(), "name", product.name(), "catalogLookups",
				this.pages.catalogLookups()));
	}

	@PutMapping("/api/catalog/{id}")
	ResponseEntity<Void> rename(@PathVariable String id, @RequestParam String name) {
		this.pages.rename(id, name);
		return ResponseEntity.noContent().build();
	}

}

package io.rediskit.sample;

import org.jspecify.annotations.Nullable;

import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/**
 * The product pages behind redis-kit's cache manager (the {@code products} cache of application.yml, with a near
 * cache): a miss loads once across every instance ({@code sync = true}), an id the {@code products} Bloom filter
 * has never seen is answered as a null without a lookup, a hot page is reloaded before it expires, and a rename
 * evicts the entry in Redis and in every instance's near cache.
 */
@Service
public class ProductPages {

	private final ProductCatalog catalog;

	ProductPages(ProductCatalog catalog) {
		this.catalog = catalog;
	}

	/**
	 * @param id the product id
	 * @return the product, or {@code null} when there is none
	 */
	@Cacheable(cacheNames = "products", sync = true)
	public @Nullable Product find(String id) {
		String name = this.catalog.find(id);
		return (name != null) ? new Product(id, name) : null;
	}

	/**
	 * Renames a product and evicts its cached page.
	 * @param id the product id
	 * @param name the new name
	 */
	@CacheEvict(cacheNames = "products", key = "#id")
	public void rename(String id, String name) {
		this.catalog.rename(id, name);
	}

	/** @return lookups that reached the slow catalog */
	public long catalogLookups() {
		return this.catalog.lookups();
	}

}

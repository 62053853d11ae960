package io.rediskit.sample;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * A slow "database" of products 1 to 100, counting its lookups so the sample can show which ones the Bloom
 * guard and the cache kept away from it.
 */
@Component
public class ProductCatalog {

	private final Map<String, String> products = new ConcurrentHashMap<>();

	private final Duration latency;

	private final AtomicLong lookups = new AtomicLong();

	ProductCatalog(@Value("${sample.catalog-latency:200ms}") Duration latency) {
		this.latency = latency;
		for (int id = 1; id <= 100; id++) {
			this.products.put(Integer.toString(id), "Product " + id);
		}
	}

	/** @return the ids of every product, which seed the Bloom filter */
	Iterable<String> ids() {
		return this.products.keySet();
	}

	/**
	 * Looks a product up, slowly.
	 * @param id the product id
	 * @return its name, or {@code null}
	 */
	@Nullable String find(String id) {
		this.lookups.incrementAndGet();
		try {
			Thread.sleep(this.latency.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.products.get(id);
	}

	/** Renames a product (or adds it). */
	void rename(String id, String name) {
		this.products.put(id, name);
	}

	/** Removes a product: the filter still has its id, the guard remembers the miss. */
	void delete(String id) {
		this.products.remove(id);
	}

	/** @return lookups that reached this "database" */
	long lookups() {
		return this.lookups.get();
	}

}

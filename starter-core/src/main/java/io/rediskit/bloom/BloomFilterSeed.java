package io.rediskit.bloom;

import java.util.Objects;
import java.util.function.Supplier;

import io.rediskit.support.Names;

/**
 * The source of every item a Bloom filter must hold (every id there is), from which the filter is seeded: at first
 * use, and again by itself whenever a check finds it not complete (lost in Redis, or recreated by a single add).
 * Given to {@link BloomFilterRegistry#setSeed(BloomFilterSeed)}; in Spring Boot, a bean of this type per filter.
 * Seeding runs on a background thread, on one instance at a time (under the lock {@code bloom-seed:<filter>} when
 * the registry has a lock registry; another instance waits for that lock without holding a thread, and seeds only if
 * the filter is still not complete once it holds it), and {@link #ids()} is asked once per seeding: it may read a
 * whole table.
 * <pre>{@code
 * @Bean
 * BloomFilterSeed productIds(ProductRepository products) {
 *     return BloomFilterSeed.of("product-ids", products::findAllIds);
 * }
 * }</pre>
 */
public interface BloomFilterSeed {

	/** @return the name of the filter this seeds */
	String filter();

	/**
	 * Every item the filter must hold now. Items created while it is read are added by the application as usual
	 * ({@link BloomFilter#add(String)}) and are kept: adds always go to the filter.
	 * @return the items, as UTF-8, iterated once
	 */
	Iterable<String> ids();

	/**
	 * A seed of a filter.
	 * @param filter the filter's name
	 * @param ids every item there is, asked once per seeding
	 * @return the seed
	 */
	static BloomFilterSeed of(String filter, Supplier<? extends Iterable<String>> ids) {
		Names.requireValid("Bloom filter", filter);
		Objects.requireNonNull(ids, "ids must not be null");
		return new BloomFilterSeed() {

			@Override
			public String filter() {
				return filter;
			}

			@Override
			public Iterable<String> ids() {
				return ids.get();
			}

		};
	}

}

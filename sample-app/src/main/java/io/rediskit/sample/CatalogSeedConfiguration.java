package io.rediskit.sample;

import io.rediskit.bloom.BloomFilterSeed;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code products} Bloom filter's source: every id of the catalog. The starter seeds the filter from it in the
 * background at startup, and again by itself whenever the guard or the product pages' cache find it not complete
 * (lost in Redis, or created anew by one add): meanwhile both let every id reach the catalog rather than answer
 * {@code 404} for a product that exists.
 */
@Configuration(proxyBeanMethods = false)
class CatalogSeedConfiguration {

	@Bean
	BloomFilterSeed productIds(ProductCatalog catalog) {
		return BloomFilterSeed.of("products", catalog::ids);
	}

}

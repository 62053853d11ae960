package io.rediskit.sample;

/**
 * A product of the catalog, as the cache keeps it: JSON in Redis, the object itself in each instance's near cache.
 *
 * @param id its id
 * @param name its name
 */
public record Product(String id, String name) {
}

package io.rediskit.keys;

/**
 * What the big-key report knows of one key.
 *
 * @param key the key, decoded as UTF-8
 * @param type its Redis type
 * @param memoryBytes {@code MEMORY USAGE} with the report's sample count (an estimate for collections)
 * @param elements fields, members, elements or entries; for a string its length in bytes
 * @param ttlMillis time to live in ms, -1 for none
 * @param encoding {@code OBJECT ENCODING}, such as {@code listpack} or {@code hashtable}
 */
public record KeyInfo(String key, String type, long memoryBytes, long elements, long ttlMillis, String encoding) {
}

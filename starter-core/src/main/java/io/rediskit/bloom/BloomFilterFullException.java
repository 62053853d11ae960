package io.rediskit.bloom;

/**
 * A growing filter has all its {@link BloomGrowth#maxLayers() layers} and the last one holds as many items as it
 * is sized for: another item would push the filter's false-positive rate past the configured one, so the add is
 * refused instead. Items of the same batch before the refused one were added. Lookups still answer. Delete the
 * filter and rebuild it with more layers or a larger sizing.
 */
public class BloomFilterFullException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message which filter and its capacity
	 */
	public BloomFilterFullException(String message) {
		super(message);
	}

}

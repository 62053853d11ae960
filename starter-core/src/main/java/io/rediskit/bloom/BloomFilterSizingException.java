package io.rediskit.bloom;

/**
 * A filter exists in Redis under the name with other sizing than the spec asks for. Its bits mean nothing under
 * another sizing, so the call fails rather than answer wrong; delete the filter ({@link BloomFilter#delete()})
 * or open it with the spec it was created with.
 */
public class BloomFilterSizingException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message what is stored and what was asked for
	 */
	public BloomFilterSizingException(String message) {
		super(message);
	}

}

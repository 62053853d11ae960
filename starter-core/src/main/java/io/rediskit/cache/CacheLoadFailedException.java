package io.rediskit.cache;

/**
 * The loader of a missing entry failed in another instance while this caller waited for it: every waiter sees
 * the failure instead of loading again, and the next miss loads anew. The message names the loader's exception
 * class and message; its stack trace stays in the instance that ran it.
 */
public class CacheLoadFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message names the cache, and the remote exception's class and message
	 */
	public CacheLoadFailedException(String message) {
		super(message);
	}

}

package io.rediskit.sample;

/**
 * The body of a rate-limited API call that went through.
 *
 * @param limiter the limiter that admitted the call
 * @param client the client it was counted for (the {@code X-Client} header)
 * @param servedBy {@code handler} when the method ran, {@code fallback} when its limit was exceeded and the
 * fallback method answered instead
 * @param retryAfterSeconds for a fallback answer, how long until the handler would run again; else 0
 */
public record ApiAnswer(String limiter, String client, String servedBy, long retryAfterSeconds) {

	static ApiAnswer handled(String limiter, String client) {
		return new ApiAnswer(limiter, client, "handler", 0);
	}

}

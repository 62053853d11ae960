package io.rediskit.autoconfigure.ratelimit;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A request as a rate-limit rule's key expression sees it, as {@code #request}, the same on Spring MVC and
 * WebFlux: {@code #request.header('X-Tenant')}, {@code #request.param('api_key')}, {@code #request.ip},
 * {@code #request.method}, {@code #request.path}. Read-only; what it returns is data, never evaluated further.
 */
public final class RuleRequest {

	private final String method;

	private final String path;

	private final String ip;

	private final Function<String, @Nullable String> headers;

	private final Function<String, @Nullable String> params;

	RuleRequest(String method, String path, String ip, Function<String, @Nullable String> headers,
			Function<String, @Nullable String> params) {
		this.method = method;
		this.path = path;
		this.ip = ip;
		this.headers = headers;
		this.params = params;
	}

	/** @return the HTTP method, such as {@code GET} */
	public String getMethod() {
		return this.method;
	}

	/** @return the path within the application, without the query */
	public String getPath() {
		return this.path;
	}

	/** @return the client address, as the {@code ip} key source has it; empty if unknown */
	public String getIp() {
		return this.ip;
	}

	/**
	 * @param name a header name, in any case
	 * @return the header's first value, or {@code null} if the request has none
	 */
	public @Nullable String header(String name) {
		return this.headers.apply(name);
	}

	/**
	 * @param name a query parameter's name
	 * @return the parameter's first value, or {@code null} if the request has none
	 */
	public @Nullable String param(String name) {
		return this.params.apply(name);
	}

}

package io.rediskit.autoconfigure.console;

import java.util.List;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import org.jspecify.annotations.Nullable;

/**
 * The console's JSON routes, once for both web stacks: each a method, a path under {@code {path}/api} and a blocking
 * handler of the request's query parameters and the caller the guard admitted, answering the body to write as
 * JSON. {@link ConsoleMvcRoutes} and {@link ConsoleWebFluxRoutes} register every one of them (the WebFlux side on
 * the bounded elastic scheduler) behind their own guard; only what differs by stack stays in them: the page, its
 * assets, the redirect to the trailing slash and the session (its CSRF token is read differently).
 */
final class ConsoleRoutes {

	private ConsoleRoutes() {
	}

	/**
	 * @param data what the pages read
	 * @param actions what the operators do
	 * @return every JSON route but the session's; {@code POST}s are actions, refused by the guard without the role
	 */
	static List<Route> of(ConsoleData data, ConsoleActions actions) {
		return List.of(get("/overview", (p, c) -> data.overview()), get("/locks", (p, c) -> data.locks()),
				get("/limiters", (p, c) -> data.limiters()),
				get("/limiter", (p, c) -> data.limiter(p.get("name"), p.get("key"))),
				get("/queues", (p, c) -> data.queues()),
				get("/queue", (p, c) -> data.queue(p.get("name"), ConsolePage.page(p.orNull("page")))),
				get("/structures", (p, c) -> data.structures()), get("/instances", (p, c) -> data.instances()),
				get("/caches", (p, c) -> data.caches()), get("/rankings", (p, c) -> data.rankings()),
				get("/rank", (p, c) -> data.rank(p.get("name"), p.get("member"))),
				get("/recent", (p, c) -> data.recent(p.get("name"), p.get("user"))),
				post("/cache/evict", (p, c) -> actions.evictCacheKey(c.name(), p.get("name"), p.get("key"))),
				post("/cache/clear", (p, c) -> actions.clearCache(c.name(), p.get("name"))),
				post("/recurring/pause", (p, c) -> actions.pauseRecurring(c.name(), p.get("name"))),
				post("/recurring/resume", (p, c) -> actions.resumeRecurring(c.name(), p.get("name"))),
				post("/recurring/trigger", (p, c) -> actions.triggerRecurring(c.name(), p.get("name"))),
				get("/keys/settings", (p, c) -> data.keySettings()), get("/keys/report", (p, c) -> data.bigKeys()),
				get("/metrics", (p, c) -> data.metrics(p.get("prefix"))),
				post("/queue/redrive",
						(p, c) -> actions.redrive(c.name(), p.get("name"), ConsolePage.max(p.orNull("max")))),
				post("/queue/redrive-dead-letter",
						(p, c) -> actions.redriveDeadLetter(c.name(), p.get("name"), p.get("id"))),
				post("/queue/delete-dead-letter",
						(p, c) -> actions.deleteDeadLetter(c.name(), p.get("name"), p.get("id"))),
				post("/queue/purge", (p, c) -> actions.purge(c.name(), p.get("name"))),
				post("/queue/pause", (p, c) -> actions.pause(c.name(), p.get("name"))),
				post("/queue/resume", (p, c) -> actions.resume(c.name(), p.get("name"))));
	}

	private static Route get(String path, Handler handler) {
		return new Route(false, path, handler);
	}

	private static Route post(String path, Handler handler) {
		return new Route(true, path, handler);
	}

	/**
	 * One JSON route.
	 * @param action whether it is a {@code POST} (an action) rather than a {@code GET} (a read)
	 * @param path its path under {@code {path}/api}, from {@code /}
	 * @param handler what answers it
	 */
	record Route(boolean action, String path, Handler handler) {
	}

	/** Answers one route's request; it may block (Redis round trips, a paced report). */
	@FunctionalInterface
	interface Handler {

		/**
		 * @param parameters the request's query parameters
		 * @param caller who asks, as the guard admitted them
		 * @return the body, written as JSON
		 */
		Object handle(Parameters parameters, Caller caller);

	}

	/** A request's query parameters, as each web stack reads them. */
	@FunctionalInterface
	interface Parameters {

		/**
		 * @param name a parameter's name
		 * @return its first value, or {@code null} when absent
		 */
		@Nullable String orNull(String name);

		/**
		 * @param name a parameter's name
		 * @return its first value, or empty when absent
		 */
		default String get(String name) {
			String value = orNull(name);
			return (value != null) ? value : "";
		}

	}

}

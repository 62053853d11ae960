package io.rediskit.autoconfigure.console;

import java.net.URI;
import java.util.Map;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import io.rediskit.autoconfigure.console.ConsoleAccess.Refusal;

import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The console's routes for Spring MVC: the page and its assets from the jar, and the JSON endpoints, all behind
 * one filter that applies {@link ConsoleAccess}. Functional routes, so the console needs no controller scanning
 * and no path mapping of the application's.
 */
final class ConsoleMvcRoutes {

	private static final String CALLER = ConsoleMvcRoutes.class.getName() + ".caller";

	private final String path;

	private final ConsoleData data;

	private final ConsoleActions actions;

	private final ConsoleAccess access;

	ConsoleMvcRoutes(String path, ConsoleData data, ConsoleActions actions,
			ConsoleAccess access) {
		this.path = path;
		this.data = data;
		this.actions = actions;
		this.access = access;
	}

	RouterFunction<ServerResponse> routes() {
		String api = this.path + "/api";
		return RouterFunctions.route()
			.GET(this.path, (request) -> ServerResponse.permanentRedirect(slash(request.uri())).build())
			.GET(this.path + "/", (request) -> ServerResponse.ok().headers(ConsolePage::headers).contentType(MediaType.TEXT_HTML)
				.body(ConsolePage.INDEX))
			.GET(api + "/session", this::session)
			.GET(api + "/overview", (request) -> json(this.data.overview()))
			.GET(api + "/locks", (request) -> json(this.data.locks()))
			.GET(api + "/limiters", (request) -> json(this.data.limiters()))
			.GET(api + "/limiter", (request) -> json(this.data.limiter(request.param("name").orElse(""),
					request.param("key").orElse(""))))
			.GET(api + "/queues", (request) -> json(this.data.queues()))
			.GET(api + "/queue", (request) -> json(this.data.queue(request.param("name").orElse(""),
					ConsolePage.page(request.param("page").orElse(null)))))
			.GET(api + "/structures", (request) -> json(this.data.structures()))
			.GET(api + "/instances", (request) -> json(this.data.instances()))
			.GET(api + "/caches", (request) -> json(this.data.caches()))
			.GET(api + "/rankings", (request) -> json(this.data.rankings()))
			.GET(api + "/rank", (request) -> json(this.data.rank(request.param("name").orElse(""),
					request.param("member").orElse(""))))
			.GET(api + "/recent", (request) -> json(this.data.recent(request.param("name").orElse(""),
					request.param("user").orElse(""))))
			.POST(api + "/cache/evict", (request) -> json(this.actions.evictCacheKey(caller(request).name(),
					request.param("name").orElse(""), request.param("key").orElse(""))))
			.POST(api + "/cache/clear",
					(request) -> json(this.actions.clearCache(caller(request).name(), request.param("name").orElse(""))))
			.POST(api + "/recurring/pause", (request) -> json(
					this.actions.pauseRecurring(caller(request).name(), request.param("name").orElse(""))))
			.POST(api + "/recurring/resume", (request) -> json(
					this.actions.resumeRecurring(caller(request).name(), request.param("name").orElse(""))))
			.POST(api + "/recurring/trigger", (request) -> json(
					this.actions.triggerRecurring(caller(request).name(), request.param("name").orElse(""))))
			.GET(api + "/keys/settings", (request) -> json(this.data.keySettings()))
			.GET(api + "/keys/report", (request) -> json(this.data.bigKeys()))
			.GET(api + "/metrics", (request) -> json(this.data.metrics(request.param("prefix").orElse(""))))
			.POST(api + "/queue/redrive", (request) -> json(this.actions.redrive(caller(request).name(),
					request.param("name").orElse(""), ConsolePage.max(request.param("max").orElse(null)))))
			.POST(api + "/queue/redrive-dead-letter", (request) -> json(this.actions.redriveDeadLetter(
					caller(request).name(), request.param("name").orElse(""), request.param("id").orElse(""))))
			.POST(api + "/queue/delete-dead-letter", (request) -> json(this.actions.deleteDeadLetter(
					caller(request).name(), request.param("name").orElse(""), request.param("id").orElse(""))))
			.POST(api + "/queue/purge",
					(request) -> json(this.actions.purge(caller(request).name(), request.param("name").orElse(""))))
			.POST(api + "/queue/pause",
					(request) -> json(this.actions.pause(caller(request).name(), request.param("name").orElse(""))))
			.POST(api + "/queue/resume",
					(request) -> json(this.actions.resume(caller(request).name(), request.param("name").orElse(""))))
			.resources(this.path + "/**", ConsolePage.ASSETS)
			.onError(RuntimeException.class, (ex, request) -> error(ex))
			.filter(this::guard)
			.build();
	}

	private ServerResponse guard(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		Caller caller = this.access.security() ? SecurityCallers.current() : Caller.ANONYMOUS;
		boolean action = HttpMethod.POST.equals(request.method());
		Refusal refusal = action ? this.access.act(caller, request.headers().firstHeader(ConsoleAccess.ACTION_HEADER) != null)
				: this.access.view(caller);
		if (refusal != null) {
			if (action) {
				this.actions.refused(ConsolePage.actionName(request.path()), caller.name(), refusal.reason());
			}
			return ServerResponse.status(refusal.status()).headers(ConsolePage::headers).contentType(MediaType.APPLICATION_JSON)
				.body(Map.of("error", refusal.reason()));
		}
		request.attributes().put(CALLER, caller);
		return next.handle(request);
	}

	private ServerResponse session(ServerRequest request) {
		return json(ConsolePage.session(this.access, caller(request),
				this.access.security() ? SecurityCallers.csrf(request.servletRequest()) : null));
	}

	private static Caller caller(ServerRequest request) {
		return (Caller) request.attributes().getOrDefault(CALLER, Caller.ANONYMOUS);
	}

	private static ServerResponse json(Object body) {
		return ServerResponse.ok().headers(ConsolePage::headers).contentType(MediaType.APPLICATION_JSON).body(body);
	}

	private static ServerResponse error(Throwable ex) {
		return ServerResponse.status(ConsolePage.status(ex)).headers(ConsolePage::headers).contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("error", ConsolePage.message(ex)));
	}

	private static URI slash(URI uri) {
		return URI.create(uri.getRawPath() + "/");
	}

}

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
 * The console's routes for Spring MVC: the page and its assets from the jar, and the JSON endpoints of
 * {@link ConsoleRoutes}, all behind one filter that applies {@link ConsoleAccess}. Functional routes, so the console needs no controller scanning
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
		RouterFunctions.Builder routes = RouterFunctions.route()
			.GET(this.path, (request) -> ServerResponse.permanentRedirect(slash(request.uri())).build())
			.GET(this.path + "/", (request) -> ServerResponse.ok().headers(ConsolePage::headers).contentType(MediaType.TEXT_HTML)
				.body(ConsolePage.INDEX))
			.GET(api + "/session", this::session);
		for (ConsoleRoutes.Route route : ConsoleRoutes.of(this.data, this.actions)) {
			HandlerFunction<ServerResponse> handler = (request) -> json(
					route.handler().handle((name) -> request.param(name).orElse(null), caller(request)));
			if (route.action()) {
				routes.POST(api + route.path(), handler);
			}
			else {
				routes.GET(api + route.path(), handler);
			}
		}
		return routes.resources(this.path + "/**", ConsolePage.ASSETS)
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

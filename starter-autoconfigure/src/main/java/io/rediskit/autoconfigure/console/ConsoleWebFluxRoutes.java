package io.rediskit.autoconfigure.console;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.Callable;

import io.rediskit.autoconfigure.console.ConsoleAccess.Caller;
import io.rediskit.autoconfigure.console.ConsoleAccess.Refusal;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The console's routes for WebFlux: the same {@link ConsoleRoutes} as {@link ConsoleMvcRoutes}. {@link ConsoleData} and
 * {@link ConsoleActions} block (Redis round trips; a paced report), so every call runs on Reactor's bounded elastic
 * scheduler, never on a server or driver thread.
 */
final class ConsoleWebFluxRoutes {

	private static final String CALLER = ConsoleWebFluxRoutes.class.getName() + ".caller";

	private final String path;

	private final ConsoleData data;

	private final ConsoleActions actions;

	private final ConsoleAccess access;

	ConsoleWebFluxRoutes(String path, ConsoleData data, ConsoleActions actions,
			ConsoleAccess access) {
		this.path = path;
		this.data = data;
		this.actions = actions;
		this.access = access;
	}

	RouterFunction<ServerResponse> routes() {
		String api = this.path + "/api";
		RouterFunctions.Builder routes = RouterFunctions.route()
			.GET(this.path,
					(request) -> ServerResponse.permanentRedirect(URI.create(request.uri().getRawPath() + "/")).build())
			.GET(this.path + "/", (request) -> ServerResponse.ok().headers(ConsolePage::headers)
				.contentType(MediaType.TEXT_HTML)
				.bodyValue(ConsolePage.INDEX))
			.GET(api + "/session", this::session);
		for (ConsoleRoutes.Route route : ConsoleRoutes.of(this.data, this.actions)) {
			HandlerFunction<ServerResponse> handler = (request) -> json(() -> route.handler()
				.handle((name) -> request.queryParam(name).orElse(null), caller(request)));
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

	private Mono<ServerResponse> guard(ServerRequest request, HandlerFunction<ServerResponse> next) {
		Mono<Caller> caller = this.access.security() ? ReactiveSecurityCallers.current() : Mono.just(Caller.ANONYMOUS);
		return caller.flatMap((who) -> {
			boolean action = HttpMethod.POST.equals(request.method());
			Refusal refusal = action
					? this.access.act(who, request.headers().firstHeader(ConsoleAccess.ACTION_HEADER) != null)
					: this.access.view(who);
			if (refusal == null) {
				request.attributes().put(CALLER, who);
				return next.handle(request);
			}
			Mono<Void> logged = action ? Mono.fromRunnable(() -> this.actions
				.refused(ConsolePage.actionName(request.path()), who.name(), refusal.reason())) : Mono.empty();
			return logged.subscribeOn(Schedulers.boundedElastic())
				.then(ServerResponse.status(refusal.status())
					.headers(ConsolePage::headers)
					.contentType(MediaType.APPLICATION_JSON)
					.bodyValue(Map.of("error", refusal.reason())));
		});
	}

	private Mono<ServerResponse> session(ServerRequest request) {
		Caller caller = caller(request);
		ConsolePage.Session without = ConsolePage.session(this.access, caller, null);
		Mono<ConsolePage.Session> session = this.access.security() ? ReactiveSecurityCallers.csrf(request.exchange())
			.map((csrf) -> ConsolePage.session(this.access, caller, csrf))
			.defaultIfEmpty(without) : Mono.just(without);
		return session.flatMap((body) -> ServerResponse.ok()
			.headers(ConsolePage::headers)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body));
	}

	private static Caller caller(ServerRequest request) {
		return (Caller) request.attributes().getOrDefault(CALLER, Caller.ANONYMOUS);
	}

	private static Mono<ServerResponse> json(Callable<?> body) {
		return Mono.fromCallable(body)
			.subscribeOn(Schedulers.boundedElastic())
			.flatMap((value) -> ServerResponse.ok()
				.headers(ConsolePage::headers)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(value));
	}

	private static Mono<ServerResponse> error(Throwable ex) {
		return ServerResponse.status(ConsolePage.status(ex))
			.headers(ConsolePage::headers)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("error", ConsolePage.message(ex)));
	}

}

package io.rediskit.support;

import java.util.List;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;

/**
 * An observation registry traced by a {@link SimpleTracer}, with the handlers Spring Boot registers when Micrometer
 * Tracing is on the class path, and a propagator that writes and reads a W3C {@code traceparent}: one application
 * instance's tracing, for the tests that follow a trace across two.
 */
public final class TracingTesting {

	/** The tracer whose spans the registry's observations become. */
	public final SimpleTracer tracer = new SimpleTracer();

	/** The registry. */
	public final ObservationRegistry registry = ObservationRegistry.create();

	/** Tracing as Spring Boot sets it up: the propagating handlers first, then the default one. */
	public TracingTesting() {
		Propagator propagator = new TraceParent(this.tracer);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
	}

	/** @return observations made in the registry */
	public Observations observations() {
		return Observations.of(this.registry, null);
	}

	/** {@code traceparent: 00-<trace id>-<span id>-01}, as the W3C propagator writes it. */
	private record TraceParent(SimpleTracer tracer) implements Propagator {

		@Override
		public List<String> fields() {
			return List.of("traceparent");
		}

		@Override
		public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
			setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
		}

		@Override
		public <C> Span.Builder extract(C carrier, Getter<C> getter) {
			String value = getter.get(carrier, "traceparent");
			if (value == null) {
				return this.tracer.spanBuilder();
			}
			String[] parts = value.split("-");
			TraceContext parent = this.tracer.traceContextBuilder()
				.traceId(parts[1])
				.spanId(parts[2])
				.sampled(true)
				.build();
			return this.tracer.spanBuilder().setParent(parent);
		}

	}

}

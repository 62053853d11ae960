package io.rediskit.sample;

import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code tracing} profile's exporter: every finished span is written to the log (category
 * {@code io.opentelemetry.exporter.logging.LoggingSpanExporter}), which Spring Boot adds to the tracer's span
 * processor. With the profile, {@code application-tracing.yml} turns tracing on and samples every trace; without
 * it, tracing is off and this bean is not defined.
 */
@Configuration(proxyBeanMethods = false)
@Profile("tracing")
class TracingConfiguration {

	@Bean
	SpanExporter logSpans() {
		return LoggingSpanExporter.create();
	}

}

package io.rediskit.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.RedisLock;
import io.rediskit.ratelimit.RateLimiterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.ActiveProfiles;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code tracing} profile: one request through a rate limit, a lock, a cache and a queue is one trace, the
 * queue's handling (on a listener thread, after the job's delay) included, as docs/observability.md prints it.
 * The request is the sample's checkout as a server span would frame it: {@link #checkout()} opens it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.unpaid-timeout=200ms", "sample.catalog-latency=5ms",
				"management.opentelemetry.tracing.export.schedule-delay=50ms" })
@ActiveProfiles("tracing")
class TracingSampleTests extends SampleHttpTests {

	@Autowired
	ObservationRegistry observations;

	@Autowired
	RateLimiterRegistry limiters;

	@Autowired
	LockRegistry locks;

	@Autowired
	ProductPages pages;

	@Autowired
	OrderTimeouts timeouts;

	@Autowired
	Spans spans;

	@Autowired
	Tracer tracer;

	@Test
	void oneRequestThroughRateLimitLockCacheAndQueueIsOneTrace() throws Exception {
		String traceId = checkout();
		// The listener handles the cancellation once its delay has passed, on its own thread: wait for its span.
		List<SpanData> trace = this.spans.awaitTrace(traceId, "queue handle order-timeouts");
		List<String> names = trace.stream().map(SpanData::getName).toList();
		assertThat(names).contains("checkout", "rate limit api-gcra", "lock wait orders", "lock hold orders",
				"cache load products", "queue enqueue order-timeouts", "queue handle order-timeouts");
		SpanData enqueue = span(trace, "queue enqueue order-timeouts");
		assertThat(span(trace, "queue handle order-timeouts").getParentSpanId()).isEqualTo(enqueue.getSpanId());
		assertThat(span(trace, "rate limit api-gcra").getAttributes().get(AttributeKey.stringKey("outcome")))
			.isEqualTo("allowed");
		// Each script is sent inside its observation's scope: the driver's command span is a child of redis-kit's.
		for (String observed : List.of("rate limit api-gcra", "lock wait orders", "lock hold orders",
				"queue enqueue order-timeouts")) {
			String parent = span(trace, observed).getSpanId();
			assertThat(trace).as("command spans under '%s'", observed)
				.anySatisfy((span) -> assertThat(span.getParentSpanId()).isEqualTo(parent));
		}
		// What docs/observability.md shows: the spans of the trace as a tree, in the order they started.
		System.out.println(Spans.tree(trace));
	}

	/** @return the trace id of a request that passes a rate limit, holds a lock, reads a cache and enqueues a job */
	private String checkout() throws InterruptedException {
		Observation request = Observation.start("checkout", this.observations);
		try (Observation.Scope scope = request.openScope()) {
			assertThat(this.limiters.get("api-gcra").tryAcquire("client-7").allowed()).isTrue();
			RedisLock lock = this.locks.getLock("orders", "o-7");
			assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
			try {
				assertThat(this.pages.find("7")).isNotNull();
				this.timeouts.placed("o-7", null);
			}
			finally {
				lock.unlock();
			}
			return this.tracer.currentSpan().context().traceId();
		}
		finally {
			request.stop();
		}
	}

	private static SpanData span(List<SpanData> trace, String name) {
		return trace.stream().filter((span) -> span.getName().equals(name)).findFirst().orElseThrow();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class InMemorySpans {

		@Bean
		Spans spans() {
			return new Spans();
		}

	}

	/** Keeps every span exported, for the test to read: an in-memory span store. */
	static final class Spans implements SpanExporter {

		private final Queue<SpanData> exported = new ConcurrentLinkedQueue<>();

		/** @return the trace's spans once one of them has the name (exported spans arrive in batches) */
		List<SpanData> awaitTrace(String traceId, String last) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (System.nanoTime() < deadline) {
				List<SpanData> trace = this.exported.stream()
					.filter((span) -> span.getTraceId().equals(traceId))
					.toList();
				if (trace.stream().anyMatch((span) -> span.getName().equals(last))
						&& trace.stream().anyMatch((span) -> span.getName().equals("checkout"))) {
					return trace;
				}
				Thread.sleep(20);
			}
			throw new AssertionError("No span '" + last + "' in trace " + traceId + " among " + this.exported);
		}

		/** @return the spans as a tree: a line a span, indented under its parent, children in the order they started */
		static String tree(List<SpanData> trace) {
			StringBuilder out = new StringBuilder();
			List<SpanData> sorted = new ArrayList<>(trace);
			sorted.sort(Comparator.comparingLong(SpanData::getStartEpochNanos));
			long start = sorted.get(0).getStartEpochNanos();
			for (SpanData root : sorted) {
				if (sorted.stream().noneMatch((span) -> span.getSpanId().equals(root.getParentSpanId()))) {
					append(out, root, sorted, 0, start);
				}
			}
			return out.toString();
		}

		private static void append(StringBuilder out, SpanData span, List<SpanData> all, int depth, long start) {
			String tags = span.getAttributes()
				.asMap()
				.entrySet()
				.stream()
				.filter((entry) -> !entry.getKey().getKey().contains("."))
				.map((entry) -> entry.getKey().getKey() + "=" + entry.getValue())
				.sorted()
				.reduce((a, b) -> a + " " + b)
				.orElse("");
			out.append(String.format("%8.1f ms %8.1f ms  %s%s [%s] %s%n",
					(span.getStartEpochNanos() - start) / 1e6,
					(span.getEndEpochNanos() - span.getStartEpochNanos()) / 1e6, "  ".repeat(depth), span.getName(),
					span.getKind(), tags));
			for (SpanData child : all) {
				if (child.getParentSpanId().equals(span.getSpanId())) {
					append(out, child, all, depth + 1, start);
				}
			}
		}

		@Override
		public CompletableResultCode export(Collection<SpanData> spans) {
			this.exported.addAll(spans);
			return CompletableResultCode.ofSuccess();
		}

		@Override
		public CompletableResultCode flush() {
			return CompletableResultCode.ofSuccess();
		}

		@Override
		public CompletableResultCode shutdown() {
			return CompletableResultCode.ofSuccess();
		}

	}

}

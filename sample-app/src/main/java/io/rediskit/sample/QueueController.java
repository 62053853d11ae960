package io.rediskit.sample;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The delay queue in the sample: {@code POST /orders/{id}/place} schedules the cancellation of an unpaid
 * order (the request's {@code X-Request-Id}, if any, travels with the job as its {@code trace-id} header),
 * {@code POST /orders/{id}/pay} (in {@link OrderController}) cancels that job, {@code GET /orders/{id}} shows the
 * status and the trace id of the request whose job cancelled it, and {@code POST /reports/{name}} queues a report ({@code poison} ends in the dead-letter
 * queue).
 */
@RestController
public class QueueController {

	private final OrderTimeouts timeouts;

	private final Reports reports;

	QueueController(OrderTimeouts timeouts, Reports reports) {
		this.timeouts = timeouts;
		this.reports = reports;
	}

	@PostMapping("/orders/{id}/place")
	Map<String, Object> place(@PathVariable String id,
			@RequestHeader(name = "X-Request-Id", required = false) @Nullable String requestId) {
		return this.timeouts.placed(id, requestId);
	}

	@GetMapping("/orders/{id}")
	Map<String, String> status(@PathVariable String id) {
		return Map.of("order", id, "status", this.timeouts.status(id), "cancelledBy", this.timeouts.cancelledBy(id));
	}

	@PostMapping("/reports/{name}")
	Map<String, String> report(@PathVariable String name) {
		return Map.of("report", name, "message", this.reports.request(name));
	}

}

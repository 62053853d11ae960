package io.rediskit.sample;

import java.util.Map;

import io.rediskit.queue.QueuePriority;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The delay queue in the sample: {@code POST /orders/{id}/place} schedules the cancellation of an unpaid
 * order (the request's {@code X-Request-Id}, if any, travels with the job as its {@code trace-id} header),
 * {@code POST /orders/{id}/pay} (in {@link OrderController}) cancels that job, {@code GET /orders/{id}} shows the
 * status and the trace id of the request whose job cancelled it, and {@code POST /reports/{name}} queues a report
 * ({@code poison} ends in the dead-letter queue), at a priority with {@code ?priority=high} or {@code low}.
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
	Map<String, String> report(@PathVariable String name,
			@RequestParam(defaultValue = "normal") String priority) {
		QueuePriority level = switch (priority) {
			case "high" -> QueuePriority.HIGH;
			case "low" -> QueuePriority.LOW;
			case "normal" -> QueuePriority.NORMAL;
			default -> throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "priority must be high, normal or low");
		};
		return Map.of("report", name, "priority", level.value(), "message", this.reports.request(name, level));
	}

}

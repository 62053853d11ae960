package io.rediskit.sample;

import java.util.concurrent.CompletionStage;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders/{id}/pay}, {@code POST /orders/{id}/pay-programmatic} and {@code POST /orders/{id}/pay-async}:
 * 200 with the outcome, or 409 with a problem detail while another request pays the same order.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final PaymentService payments;

	private final OrderTimeouts timeouts;

	OrderController(PaymentService payments, OrderTimeouts timeouts) {
		this.payments = payments;
		this.timeouts = timeouts;
	}

	/** Pays, and cancels the order's pending cancellation for non-payment (see {@link OrderTimeouts}). */
	@PostMapping("/{id}/pay")
	PaymentOutcome pay(@PathVariable String id) {
		PaymentOutcome outcome = this.payments.pay(id);
		this.timeouts.paid(id);
		return outcome;
	}

	@PostMapping("/{id}/pay-programmatic")
	PaymentOutcome payProgrammatically(@PathVariable String id) {
		return this.payments.payProgrammatically(id);
	}

	@PostMapping("/{id}/pay-async")
	CompletionStage<PaymentOutcome> payAsync(@PathVariable String id) {
		return this.payments.payAsync(id);
	}

}

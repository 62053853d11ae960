package io.rediskit.sample;

/**
 * What a payment request did.
 *
 * @param orderId the order
 * @param outcome {@code PAID} when this request charged the order, {@code ALREADY_PAID} when an earlier one had
 * @param charges how many times the order has been charged in total (1 unless mutual exclusion failed)
 * @param fencingToken the lock's fencing token for this payment, or 0 when none was needed
 */
public record PaymentOutcome(String orderId, String outcome, long charges, long fencingToken) {
}

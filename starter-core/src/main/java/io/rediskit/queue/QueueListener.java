package io.rediskit.queue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the consumer of a queue; with the Spring Boot starter, a
 * {@link QueueListenerContainer} is started for it with the application and stopped gracefully with it.
 * <pre>{@code
 * @QueueListener(queue = "emails", concurrency = "4")
 * void send(Email email) { ... }
 * }</pre>
 * The method takes the payload type, or {@link QueueMessage QueueMessage&lt;T&gt;} to see the id and
 * delivery count or to settle the message itself; a second parameter of type {@code Map<String, String>}, if
 * any, receives the message's {@link QueueMessage#headers() headers}. Returning normally acknowledges the message; throwing
 * retries it with the queue's backoff, and after its last delivery dead-letters it with the exception as the
 * reason. What the method returns, if anything, is the message's result: a flow's parent reads its children's
 * ({@link QueueMessage#setResult}, {@link QueueFlow}). Delivery is at least once: make the method idempotent.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface QueueListener {

	/** @return the queue name, configured under {@code redis-kit.queue.queues.<name>} */
	String queue();

	/**
	 * @return how many messages are processed at once, 1 to 1000; a number or a {@code ${...}} placeholder
	 */
	String concurrency() default "1";

	/**
	 * @return the listener's id, the same on every instance, by which it is paused on its own
	 * ({@link QueueListenerContainer#pause()}, the actuator endpoint); {@code <bean name>.<method name>} unless set.
	 * At most 200 characters, or a {@code ${...}} placeholder
	 */
	String id() default "";

}

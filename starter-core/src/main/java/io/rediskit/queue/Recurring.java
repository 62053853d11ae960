package io.rediskit.queue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@link QueueListener @QueueListener} method a recurring job: one {@link RecurringSlot} message per slot
 * of the schedule (a cron expression in a zone, or a fixed rate) goes to the listener's queue, once across all
 * instances (see {@link RecurringJobs}), and the method consumes it like any message of that queue, with its
 * retries and dead letters. It goes on the listener method rather than on a method of its own so that the job's
 * consumer is declared in one place, with every setting a listener has; the queue should have no other
 * listener, which would take the job's messages too.
 *
 * <pre>{@code
 * @Recurring(cron = "0 0 7 * * *", zone = "Europe/Paris")
 * @QueueListener(queue = "digests")
 * void build(RecurringSlot slot) { ... }
 * }</pre>
 *
 * The method takes {@code RecurringSlot} or {@code QueueMessage<RecurringSlot>}. Attributes resolve
 * {@code ${...}} placeholders; a bad value fails startup naming the method and attribute. The same job can be
 * declared in YAML instead ({@code redis-kit.queue.recurring.<job>}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Recurring {

	/** @return the job's name, part of each message's id and of the metrics' tags; the queue's name if empty */
	String name() default "";

	/** @return a cron expression (second, minute, hour, day of month, month, day of week); or set fixedRate */
	String cron() default "";

	/** @return the time between slots, such as {@code "5m"} or {@code "PT5M"}; or set cron */
	String fixedRate() default "";

	/** @return the zone the cron expression is read in, such as {@code "Europe/Paris"}; UTC if empty */
	String zone() default "";

	/** @return what happens to slots missed while no instance could enqueue them */
	MissedSlots missedSlots() default MissedSlots.RUN_ONCE;

	/** @return how late a slot may still be enqueued as on time, such as {@code "1m"}; a minute if empty */
	String grace() default "";

}

package io.rediskit.lock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method at most once at a time across instances, and skips it silently where another
 * instance runs it or ran it less than {@link #lockAtLeastFor()} ago: the lock for a {@code @Scheduled} job that
 * every instance triggers. With the redis-kit Spring Boot starter, any Spring bean method can carry it:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *")
 * @ScheduledLock(name = "nightly-report", lockAtLeastFor = "1m", lockAtMostFor = "30m")
 * public void nightlyReport() { ... }
 * }</pre>
 *
 * It is {@link JobLock} applied to a method (see there for the semantics and limits), and what
 * ShedLock's {@code @SchedulerLock} is, with the same attribute names. A call that finds the lock taken does
 * not run the method and returns {@code null} (nothing for a {@code void} method), with a debug log line only,
 * counted by the metrics as {@code rediskit.lock.acquire{result=skipped}}. A call that cannot reach Redis throws,
 * since an outage is not a skip. The lock is {@code name}, or {@code name:<key>} when a key is given: a SpEL
 * expression over the method's parameters, as for {@link DistributedLock#key()}; {@code name} and the durations
 * accept {@code ${placeholders}}.
 * <p>
 * For blocking methods only: a method returning a {@code CompletionStage} or a reactive type, or a primitive
 * other than {@code void} (a skip has no value to return), fails startup.
 */
@Target({ ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ScheduledLock {

	/**
	 * Lock name, or group name with a {@link #key()}; also the {@code lock} tag of the metrics.
	 * @return the name
	 */
	String name();

	/**
	 * SpEL expression over the method parameters that selects one lock within the group; empty for a single lock
	 * named {@link #name()}.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * Longest time the lock is held, counted from the start of a run on Redis's clock, such as {@code "10m"},
	 * {@code "PT10M"} or a {@code ${placeholder}}: a holder that dies frees the job after this at the latest,
	 * and a run that lasts longer loses the lock. Choose it well above the longest normal run.
	 * @return lock-at-most
	 */
	String lockAtMostFor();

	/**
	 * Shortest time the lock is held, counted from the start of a run: a run that ends sooner keeps the job
	 * locked until then, so that instances whose trigger fires a little later skip the same slot. Choose it above
	 * the clock skew between instances and below the interval between triggers; {@code "0s"} (the default) frees
	 * the job when the run ends.
	 * @return lock-at-least
	 */
	String lockAtLeastFor() default "0s";

}

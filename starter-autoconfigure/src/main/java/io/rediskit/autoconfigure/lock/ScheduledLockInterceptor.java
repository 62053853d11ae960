package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

import io.rediskit.autoconfigure.support.AnnotationInterceptor;
import io.rediskit.autoconfigure.support.AsyncResults;
import io.rediskit.autoconfigure.support.Durations;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.JobLock;
import io.rediskit.lock.LockLeaseLostException;
import io.rediskit.lock.LockRegistry;
import io.rediskit.lock.LockSpec;
import io.rediskit.lock.ScheduledLock;
import io.rediskit.support.Names;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs a {@link ScheduledLock @ScheduledLock} method as one run of its
 * {@link JobLock}: {@link JobLock#tryStart} with the annotation's bounds, the method, then the run's
 * end, which keeps the lock until lock-at-least has passed. A lock that is taken skips the method: {@code null}
 * is returned, a debug line logged, and the registry's listeners count {@code SKIPPED}. Redis unavailable while
 * starting: its {@code DataAccessException} is thrown (the scheduler logs it), since skipping would hide the
 * outage. The end of a run that cannot reach Redis is handled as for {@code @DistributedLock}: the method's
 * result stands and the key ends with its lease; a run that outlasted lock-at-most reports
 * {@link io.rediskit.lock.LockLeaseLostException} after the method returns.
 * <p>
 * {@link ScheduledLockAdvisor} checks every annotated method at startup through {@link #check(Method, Class)}:
 * besides what every annotation interceptor checks, a name that resolves to nothing, durations out of range or
 * with lock-at-least above lock-at-most, an asynchronous method, or one returning a primitive value.
 * Every run and skip is recorded in {@link ScheduledJobs}, one entry per job name.
 */
public final class ScheduledLockInterceptor
		extends AnnotationInterceptor<ScheduledLock, ScheduledLockInterceptor.Resolved> {

	private static final Log logger = LogFactory.getLog(ScheduledLockInterceptor.class);

	private final ObjectProvider<LockRegistry> lockRegistry;

	private final PropertyResolver placeholders;

	private final ScheduledJobs jobs;

	/**
	 * @param lockRegistry where locks come from, resolved on first use
	 * @param placeholders resolves placeholders in the name and the durations
	 */
	public ScheduledLockInterceptor(ObjectProvider<LockRegistry> lockRegistry, PropertyResolver placeholders) {
		this(lockRegistry, placeholders, new ScheduledJobs());
	}

	/**
	 * @param lockRegistry where locks come from, resolved on first use
	 * @param placeholders resolves placeholders in the name and the durations
	 * @param jobs where each run and skip is recorded
	 */
	public ScheduledLockInterceptor(ObjectProvider<LockRegistry> lockRegistry, PropertyResolver placeholders,
			ScheduledJobs jobs) {
		super(ScheduledLock.class, ScheduledLock::key, placeholders);
		this.lockRegistry = lockRegistry;
		this.placeholders = placeholders;
		this.jobs = jobs;
	}

	@Override
	protected @Nullable Object invoke(Resolved resolved, ScheduledLock annotation, MethodInvocation invocation)
			throws Throwable {
		LockRegistry registry = this.lockRegistry.getObject();
		String key = key(resolved, annotation, invocation);
		JobLock lock = (key == null) ? registry.getJobLock(resolved.name()) : registry.getJobLock(resolved.name(), key);
		Optional<JobLock.Run> started = lock.tryStart(resolved.lockAtLeastFor(), resolved.lockAtMostFor());
		ScheduledJobs.Job job = this.jobs.job(resolved.name(), !annotation.key().isEmpty(), resolved.lockAtLeastFor(),
				resolved.lockAtMostFor());
		if (started.isEmpty()) {
			job.skipped();
			// Another instance runs this slot, or ran it within lock-at-least: the expected case, not an error.
			if (logger.isDebugEnabled()) {
				logger.debug("Skipped " + MethodKeyEvaluator.describe(resolved.method()) + ": lock '" + lock.name()
						+ "' is held by another run");
			}
			return null;
		}
		JobLock.Run run = started.get();
		job.started();
		Throwable failure = null;
		ScheduledJobs.Outcome outcome = ScheduledJobs.Outcome.RAN;
		try {
			return invocation.proceed();
		}
		catch (Throwable ex) {
			failure = ex;
			outcome = ScheduledJobs.Outcome.FAILED;
			throw ex;
		}
		finally {
			try {
				run.close();
			}
			catch (RuntimeException ex) {
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				else if (!LeaseGuard.releaseUnreachable(ex)) {
					outcome = (ex instanceof LockLeaseLostException) ? ScheduledJobs.Outcome.LEASE_LOST
							: ScheduledJobs.Outcome.FAILED;
					throw ex;
				}
			}
			finally {
				job.ended(outcome);
			}
		}
	}

	@Override
	protected Resolved resolve(@Nullable ScheduledLock annotation, Method specific, Class<?> targetClass) {
		if (annotation == null) {
			return new Resolved(null, specific, "", "", Duration.ZERO, Duration.ZERO);
		}
		String description = "@ScheduledLock(name = \"" + annotation.name() + "\")";
		String on = description + " on " + MethodKeyEvaluator.describe(specific);
		String name;
		try {
			name = this.placeholders.resolveRequiredPlaceholders(annotation.name());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("name of " + on + ": " + ex.getMessage(), ex);
		}
		if (!Names.isValid(name)) {
			throw new IllegalArgumentException("name of " + on + " must be " + Names.RULE + " (no '.', ':' or space),"
					+ " was '" + name + "'");
		}
		if (AsyncResults.kind(specific) != AsyncResults.Kind.PLAIN) {
			throw new IllegalArgumentException(on + " returns " + specific.getReturnType().getSimpleName()
					+ ": a scheduled lock holds a blocking run, so the method must return void or a value");
		}
		Class<?> returnType = specific.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			throw new IllegalArgumentException(on + " returns " + returnType.getSimpleName()
					+ ": a skipped run returns null, so the method must return void or an object");
		}
		if (annotation.lockAtMostFor().isEmpty()) {
			throw new IllegalArgumentException("lockAtMostFor of " + on
					+ " must be set: the longest a run may hold the lock, such as \"10m\"");
		}
		Duration atMost = requiredDuration(annotation.lockAtMostFor(), "lockAtMostFor", description, specific,
				LockSpec.MAX_DURATION);
		Duration atLeast = requiredDuration(annotation.lockAtLeastFor(), "lockAtLeastFor", description, specific,
				LockSpec.MAX_DURATION);
		if (atMost.toMillis() < 1) {
			throw new IllegalArgumentException("lockAtMostFor of " + on + " must be at least 1ms, was " + Durations.format(atMost));
		}
		if (atLeast.compareTo(atMost) > 0) {
			throw new IllegalArgumentException("lockAtLeastFor of " + on + " (" + Durations.format(atLeast)
					+ ") must not be longer than lockAtMostFor (" + Durations.format(atMost) + ")");
		}
		return new Resolved(annotation, specific, description, name, atLeast, atMost);
	}

	/**
	 * What the interceptor needs of one advised method, resolved once.
	 * @param annotation the annotation, {@code null} if the method has none
	 * @param method the method as declared on the target class
	 * @param description the annotation as error messages show it
	 * @param name the lock name, placeholders resolved
	 * @param lockAtLeastFor lock-at-least
	 * @param lockAtMostFor lock-at-most
	 */
	record Resolved(@Nullable ScheduledLock annotation, Method method, String description,
			String name, Duration lockAtLeastFor, Duration lockAtMostFor) implements Resolution<ScheduledLock> {
	}

}

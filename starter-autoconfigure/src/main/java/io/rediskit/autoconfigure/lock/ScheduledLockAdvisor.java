package io.rediskit.autoconfigure.lock;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

import io.rediskit.autoconfigure.support.AnnotationAdvisor;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.lock.ScheduledLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.scheduling.config.TaskManagementConfigUtils;

/**
 * Applies {@link ScheduledLockInterceptor} to methods annotated with {@link ScheduledLock @ScheduledLock}, on
 * classes and on the interfaces they implement, and checks every such method of the application's beans at
 * startup ({@link ScheduledLockInterceptor#check(Method, Class)}). Ordered as {@link DistributedLockAdvisor}:
 * outside {@code @Transactional}, so that a run's transaction has committed before the lock is released. When
 * the application has such methods but scheduling is not enabled ({@code @EnableScheduling}), it warns once at
 * startup naming them: their {@code @Scheduled} would never run, silently.
 */
public class ScheduledLockAdvisor extends AnnotationAdvisor {

	private static final long serialVersionUID = 1L;

	private static final Log logger = LogFactory.getLog(ScheduledLockAdvisor.class);

	private final transient ScheduledLockInterceptor interceptor;

	private final transient Set<String> methods = new ConcurrentSkipListSet<>();

	private transient @Nullable BeanFactory beanFactory;

	/**
	 * @param interceptor what runs around annotated methods
	 */
	public ScheduledLockAdvisor(ScheduledLockInterceptor interceptor) {
		super(ScheduledLock.class, interceptor, DistributedLockAdvisor.DEFAULT_ORDER);
		this.interceptor = interceptor;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		super.setBeanFactory(beanFactory);
		this.beanFactory = beanFactory;
	}

	@Override
	protected void check(Method method, Class<?> targetClass) {
		this.methods.add(MethodKeyEvaluator.describe(method));
		this.interceptor.check(method, targetClass);
	}

	@Override
	public void afterSingletonsInstantiated() {
		super.afterSingletonsInstantiated();
		BeanFactory factory = this.beanFactory;
		if (factory != null && !this.methods.isEmpty()
				&& !factory.containsBean(TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME)) {
			logger.warn("@ScheduledLock on " + String.join(", ", new TreeSet<>(this.methods)) + ": scheduling is not"
					+ " enabled, so @Scheduled methods never run. Add @EnableScheduling to a @Configuration class (or"
					+ " ignore this if these methods are called some other way)");
		}
	}

}

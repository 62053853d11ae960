package io.rediskit.autoconfigure.support;

import java.lang.annotation.Annotation;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies an interceptor to the methods that carry an annotation, on classes and on the interfaces they
 * implement; the shared shape of redis-kit's advisors, which Spring Boot's auto-proxy creator picks up as
 * infrastructure advisors.
 */
public abstract class AnnotationAdvisor extends AbstractPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	private final transient Pointcut pointcut;

	private final transient MethodInterceptor interceptor;

	/**
	 * @param annotationType the method annotation that selects the methods
	 * @param interceptor what runs around them
	 * @param order the advisor's order, which places it among other advisors such as {@code @Transactional}'s
	 */
	protected AnnotationAdvisor(Class<? extends Annotation> annotationType, MethodInterceptor interceptor,
			int order) {
		this.pointcut = new AnnotationMatchingPointcut(null, annotationType, true);
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}

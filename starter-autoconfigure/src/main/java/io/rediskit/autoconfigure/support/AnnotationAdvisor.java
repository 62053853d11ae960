package io.rediskit.autoconfigure.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Applies an interceptor to the methods that carry an annotation, on classes and on the interfaces they
 * implement; the shared shape of redis-kit's advisors, which Spring Boot's auto-proxy creator picks up as
 * infrastructure advisors.
 * <p>
 * Annotations are checked when startup has created the singletons, not on the first call: every annotated
 * method of every bean class (singletons by their target class, behind any proxy; other beans by their
 * declared type) goes through {@link #check(Method, Class)}, and what fails stops startup with one
 * {@link InvalidAnnotationException} listing each bean, class, method and attribute at fault, together with what
 * the application's other {@link AnnotationCheck}s found. Beans created only later (registered by hand after
 * startup, say) are checked on their first call, as before.
 */
public abstract class AnnotationAdvisor extends AbstractPointcutAdvisor
		implements BeanFactoryAware, SmartInitializingSingleton, AnnotationCheck {

	private static final long serialVersionUID = 1L;

	private final transient Class<? extends Annotation> annotationType;

	private final transient Pointcut pointcut;

	private final transient MethodInterceptor interceptor;

	private transient @Nullable ConfigurableListableBeanFactory beanFactory;

	private final transient AtomicBoolean checked = new AtomicBoolean();

	/**
	 * @param annotationType the method annotation that selects the methods
	 * @param interceptor what runs around them
	 * @param order the advisor's order, which places it among other advisors such as {@code @Transactional}'s
	 */
	protected AnnotationAdvisor(Class<? extends Annotation> annotationType, MethodInterceptor interceptor,
			int order) {
		this.annotationType = annotationType;
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

	@Override
	public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
		this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory listable) ? listable : null;
	}

	/**
	 * Checks one annotated method, as startup finds it.
	 * @param method the method, as declared on (or inherited by) the target class
	 * @param targetClass the bean's class, behind any proxy
	 * @throws IllegalArgumentException or {@link IllegalStateException} with a message naming the annotation,
	 * the method and the attribute at fault
	 */
	protected abstract void check(Method method, Class<?> targetClass);

	/**
	 * Runs every annotation check of the application, this one's included, unless another ran them already.
	 * @throws InvalidAnnotationException listing every method at fault, of every annotation
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		if (factory != null) {
			AnnotationCheck.checkAll(factory);
		}
	}

	@Override
	public String annotationName() {
		return this.annotationType.getSimpleName();
	}

	/**
	 * Checks every annotated method of every bean class once; later calls find nothing new.
	 */
	@Override
	public List<String> checkPending() {
		ConfigurableListableBeanFactory factory = this.beanFactory;
		if (factory == null || this.checked.getAndSet(true)) {
			return List.of();
		}
		List<String> failures = new ArrayList<>();
		Set<Class<?>> seen = new HashSet<>();
		for (String beanName : factory.getBeanDefinitionNames()) {
			if (ScopedProxyUtils.isScopedTarget(beanName)) {
				continue;
			}
			Class<?> type = targetClass(factory, beanName);
			if (type == null || !seen.add(type) || !AnnotationUtils.isCandidateClass(type, this.annotationType)) {
				continue;
			}
			Map<Method, Annotation> annotated = MethodIntrospector.selectMethods(type,
					(MethodIntrospector.MetadataLookup<Annotation>) (method) -> AnnotatedElementUtils
						.findMergedAnnotation(method, this.annotationType));
			for (Method method : annotated.keySet()) {
				try {
					check(method, type);
				}
				catch (IllegalArgumentException | IllegalStateException ex) {
					failures.add("bean '" + beanName + "' (" + type.getName() + "): " + ex.getMessage());
				}
			}
		}
		return failures;
	}

	// The class behind a created singleton's proxy; for any other bean its declared type, without creating it.
	private static @Nullable Class<?> targetClass(ConfigurableListableBeanFactory factory, String beanName) {
		Class<?> type = null;
		if (factory.containsSingleton(beanName)) {
			Object bean = factory.getSingleton(beanName);
			if (bean != null && !(bean instanceof FactoryBean)) {
				type = AopProxyUtils.ultimateTargetClass(bean);
			}
		}
		if (type == null) {
			try {
				type = factory.getType(beanName, false);
			}
			catch (BeansException ex) {
				// A bean whose type cannot be told without creating it is checked on its first call instead.
				return null;
			}
		}
		// A proxy without a target (a repository, say) has no class of its own to check.
		return (type != null && !Proxy.isProxyClass(type)) ? ClassUtils.getUserClass(type) : null;
	}

}

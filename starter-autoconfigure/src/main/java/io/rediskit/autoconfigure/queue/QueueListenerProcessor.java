package io.rediskit.autoconfigure.queue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.autoconfigure.support.AnnotationCheck;
import io.rediskit.autoconfigure.support.InvalidAnnotationException;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link QueueListener @QueueListener} methods on the application's beans and checks them once the
 * singletons exist (an unknown queue, a bad parameter or a bad concurrency fails startup with an
 * {@link InvalidAnnotationException}, naming bean, class, method and attribute); each method that passes is
 * registered with the {@link QueueListenerContainerRegistry}, which runs its container. Discovery only: it starts
 * and stops nothing.
 */
final class QueueListenerProcessor implements BeanPostProcessor, SmartInitializingSingleton,
		EmbeddedValueResolverAware, BeanFactoryAware, AnnotationCheck {

	private final ObjectProvider<QueueRegistry> registry;

	private final ObjectProvider<QueueListenerContainerRegistry> containers;

	private final List<Candidate> pending = new CopyOnWriteArrayList<>();

	private @Nullable StringValueResolver resolver;

	private @Nullable ListableBeanFactory beanFactory;

	QueueListenerProcessor(ObjectProvider<QueueRegistry> registry,
			ObjectProvider<QueueListenerContainerRegistry> containers) {
		this.registry = registry;
		this.containers = containers;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.resolver = resolver;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(type, QueueListener.class)) {
			return bean;
		}
		Map<Method, QueueListener> methods = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<QueueListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, QueueListener.class));
		methods.forEach((method, annotation) -> this.pending
			.add(new Candidate(bean, beanName, type, method, annotation)));
		return bean;
	}

	/**
	 * Checks every {@code @QueueListener} found while the singletons were created, before anything starts,
	 * together with the application's other {@link AnnotationCheck}s: an unknown queue, a method that does not
	 * take one payload or {@code QueueMessage<T>}, or a bad concurrency fails startup with one
	 * {@link InvalidAnnotationException} naming each bean, class, method and attribute.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ListableBeanFactory factory = this.beanFactory;
		if (factory != null) {
			AnnotationCheck.checkAll(factory);
		}
		else {
			failOnPending();
		}
	}

	@Override
	public String annotationName() {
		return QueueListener.class.getSimpleName();
	}

	/** Checks the methods found since the last check (lazy beans), failing on any invalid one. */
	void failOnPending() {
		List<String> failures = checkPending();
		if (!failures.isEmpty()) {
			throw new InvalidAnnotationException(annotationName(), failures);
		}
	}

	/**
	 * Checks the listener methods found since the last check, registering those that pass with the container
	 * registry.
	 */
	@Override
	public List<String> checkPending() {
		QueueRegistry queues = this.registry.getIfAvailable();
		QueueListenerContainerRegistry registered = this.containers.getIfAvailable();
		List<String> failures = new ArrayList<>();
		List<Candidate> candidates = new ArrayList<>(this.pending);
		this.pending.removeAll(candidates);
		for (Candidate candidate : candidates) {
			try {
				QueueListenerEndpoint endpoint = endpoint(queues, candidate);
				if (registered != null) {
					registered.register(endpoint);
				}
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				failures.add("bean '" + candidate.beanName + "' (" + candidate.type.getName() + "): "
						+ describe(candidate) + ": " + ex.getMessage());
			}
		}
		return failures;
	}

	private static String describe(Candidate candidate) {
		return "@QueueListener(queue = \"" + candidate.annotation.queue() + "\") on "
				+ MethodKeyEvaluator.describe(candidate.method);
	}

	private QueueListenerEndpoint endpoint(@Nullable QueueRegistry queues, Candidate candidate) {
		Method method = candidate.method;
		if (method.getParameterCount() < 1 || method.getParameterCount() > 2) {
			throw new IllegalStateException("the method must take one parameter, the payload or QueueMessage<T>"
					+ " (and optionally a second, Map<String, String> headers); it takes " + method.getParameterCount());
		}
		if (method.getParameterCount() == 2) {
			ResolvableType headers = ResolvableType.forMethodParameter(method, 1);
			if (!Map.class.equals(headers.resolve()) || !String.class.equals(headers.resolveGeneric(0))
					|| !String.class.equals(headers.resolveGeneric(1))) {
				throw new IllegalStateException("the second parameter must be Map<String, String>, the message's"
						+ " headers; it is " + headers);
			}
		}
		Class<?> parameter = method.getParameterTypes()[0];
		boolean wantsMessage = QueueMessage.class.equals(parameter);
		Class<?> payloadType;
		if (wantsMessage) {
			Class<?> resolved = ResolvableType.forMethodParameter(method, 0).getGeneric(0).resolve();
			if (resolved == null) {
				throw new IllegalStateException("the parameter QueueMessage needs a payload type argument, such as"
						+ " QueueMessage<Email>");
			}
			payloadType = resolved;
		}
		else {
			payloadType = parameter;
		}
		if (QueueMessage.class.isAssignableFrom(payloadType) || RedisQueue.class.isAssignableFrom(payloadType)
				|| void.class.equals(payloadType)) {
			throw new IllegalStateException("the payload type " + payloadType.getSimpleName()
					+ " cannot be read from JSON; take the payload type, or QueueMessage<T> with it");
		}
		payloadType = ClassUtils.resolvePrimitiveIfNecessary(payloadType);
		String concurrencyText = resolve("concurrency", candidate.annotation.concurrency());
		int concurrency;
		try {
			concurrency = Integer.parseInt(concurrencyText.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException("concurrency '" + concurrencyText + "' is not a number");
		}
		if (concurrency < 1 || concurrency > 1000) {
			throw new IllegalStateException("concurrency must be between 1 and 1000, was " + concurrency);
		}
		String queue = resolve("queue", candidate.annotation.queue());
		if (queue.isBlank()) {
			throw new IllegalStateException("queue must name a queue");
		}
		if (queues != null) {
			try {
				queues.get(queue, payloadType);
			}
			catch (IllegalArgumentException ex) {
				// The registry's message names the property to set and the closest queue it knows, if any.
				throw new IllegalStateException("queue \"" + queue + "\": " + ex.getMessage(), ex);
			}
		}
		Method invocable = AopUtils.selectInvocableMethod(method, candidate.bean.getClass());
		invocable.trySetAccessible();
		String where = "@QueueListener method " + candidate.type.getName() + "." + method.getName() + " of bean '"
				+ candidate.beanName + "'";
		String id = resolve("id", candidate.annotation.id());
		if (id.isEmpty()) {
			id = candidate.beanName + "." + method.getName();
		}
		if (id.length() > 200) {
			throw new IllegalStateException("id must be at most 200 characters, was " + id.length());
		}
		return new QueueListenerEndpoint(candidate.bean, invocable, queue, payloadType, wantsMessage,
				method.getParameterCount() == 2, concurrency, where, id);
	}

	private String resolve(String attribute, String value) {
		StringValueResolver current = this.resolver;
		try {
			String resolved = (current != null) ? current.resolveStringValue(value) : value;
			resolved = (resolved != null) ? resolved : value;
			if (resolved.contains("${")) {
				// A lenient resolver leaves what it cannot resolve in place.
				throw new IllegalStateException(attribute + " '" + value + "' does not resolve: no such property");
			}
			return resolved;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(attribute + " '" + value + "' does not resolve: " + ex.getMessage(), ex);
		}
	}

	private record Candidate(Object bean, String beanName, Class<?> type, Method method, QueueListener annotation) {
	}

}

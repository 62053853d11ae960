package io.rediskit.autoconfigure.queue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.queue.QueueHandler;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueListenerContainer;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RedisQueue;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link QueueListener @QueueListener} methods on the application's beans and runs a
 * {@link QueueListenerContainer} for each: created and started when the application starts (so an unknown queue
 * or a bad method fails startup, naming the method), stopped gracefully when it stops.
 */
final class QueueListenerProcessor implements BeanPostProcessor, SmartLifecycle, EmbeddedValueResolverAware {

	private final ObjectProvider<QueueRegistry> registry;

	private final ObjectProvider<QueueProperties> properties;

	private final List<Target> targets = new CopyOnWriteArrayList<>();

	private final List<QueueListenerContainer<?>> containers = new CopyOnWriteArrayList<>();

	private @Nullable StringValueResolver resolver;

	private volatile boolean running;

	QueueListenerProcessor(ObjectProvider<QueueRegistry> registry, ObjectProvider<QueueProperties> properties) {
		this.registry = registry;
		this.properties = properties;
	}

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.resolver = resolver;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		Map<Method, QueueListener> methods = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<QueueListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, QueueListener.class));
		methods.forEach((method, annotation) -> this.targets.add(target(bean, beanName, type, method, annotation)));
		return bean;
	}

	private Target target(Object bean, String beanName, Class<?> type, Method method, QueueListener annotation) {
		String where = "@QueueListener method " + type.getName() + "." + method.getName() + " of bean '" + beanName
				+ "'";
		if (method.getParameterCount() != 1) {
			throw new IllegalStateException(where + " must take one parameter: the payload or QueueMessage<T>");
		}
		boolean wantsMessage = QueueMessage.class.equals(method.getParameterTypes()[0]);
		Class<?> payloadType = wantsMessage
				? ResolvableType.forMethodParameter(method, 0).getGeneric(0).resolve(Object.class)
				: method.getParameterTypes()[0];
		String concurrencyText = resolve(annotation.concurrency());
		int concurrency;
		try {
			concurrency = Integer.parseInt(concurrencyText.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(where + ": concurrency must be a number, was '" + concurrencyText + "'");
		}
		if (concurrency < 1 || concurrency > 1000) {
			throw new IllegalStateException(where + ": concurrency must be between 1 and 1000, was " + concurrency);
		}
		Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
		invocable.trySetAccessible();
		return new Target(bean, invocable, resolve(annotation.queue()), payloadType, wantsMessage, concurrency, where);
	}

	private String resolve(String value) {
		StringValueResolver current = this.resolver;
		String resolved = (current != null) ? current.resolveStringValue(value) : value;
		return (resolved != null) ? resolved : value;
	}

	@Override
	public void start() {
		if (this.running) {
			return;
		}
		QueueProperties settings = this.properties.getObject();
		if (!settings.getListener().isAutoStartup()) {
			return;
		}
		QueueRegistry queues = this.registry.getObject();
		for (Target target : this.targets) {
			QueueListenerContainer<?> container = container(queues, target);
			container.setShutdownTimeout(settings.getListener().getShutdownTimeout());
			this.containers.add(container);
		}
		this.containers.forEach(QueueListenerContainer::start);
		this.running = true;
	}

	private static QueueListenerContainer<?> container(QueueRegistry queues, Target target) {
		RedisQueue<Object> queue;
		try {
			@SuppressWarnings("unchecked")
			RedisQueue<Object> typed = (RedisQueue<Object>) queues.get(target.queue, target.payloadType);
			queue = typed;
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(target.where + ": " + ex.getMessage(), ex);
		}
		QueueHandler<Object> handler = (message) -> {
			try {
				target.method.invoke(target.bean, target.wantsMessage ? message : message.payload());
			}
			catch (InvocationTargetException ex) {
				Throwable cause = ex.getCause();
				if (cause instanceof Exception exception) {
					throw exception;
				}
				throw (Error) cause;
			}
		};
		return queues.createContainer(queue, handler, target.concurrency);
	}

	@Override
	public void stop() {
		List<Thread> stopping = new ArrayList<>();
		// Containers stop in parallel, so the shutdown takes one shutdown timeout, not one per container.
		for (QueueListenerContainer<?> container : this.containers) {
			Thread thread = new Thread(container::stop, "redis-kit-queue-stop");
			stopping.add(thread);
			thread.start();
		}
		for (Thread thread : stopping) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		this.containers.clear();
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return QueueListenerContainer.PHASE;
	}

	/** @return the running containers, for the endpoint and tests */
	List<QueueListenerContainer<?>> containers() {
		return List.copyOf(this.containers);
	}

	private record Target(Object bean, Method method, String queue, Class<?> payloadType, boolean wantsMessage,
			int concurrency, String where) {
	}

}

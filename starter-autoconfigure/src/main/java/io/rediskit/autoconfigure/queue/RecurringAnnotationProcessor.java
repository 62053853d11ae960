package io.rediskit.autoconfigure.queue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rediskit.autoconfigure.support.AnnotationCheck;
import io.rediskit.autoconfigure.support.AnnotationDurations;
import io.rediskit.autoconfigure.support.InvalidAnnotationException;
import io.rediskit.autoconfigure.support.MethodKeyEvaluator;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueMessage;
import io.rediskit.queue.Recurring;
import io.rediskit.queue.RecurringJobSpec;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.queue.RecurringSlot;
import io.rediskit.support.InvalidSpecException;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;

/**
 * Finds {@link Recurring @Recurring} methods on the application's beans and adds their jobs to
 * {@link RecurringJobs} once the singletons exist, before anything starts. A method without
 * {@link QueueListener @QueueListener}, one that does not take {@code RecurringSlot}, a bad cron expression, zone,
 * rate or grace, or a job name used twice fails startup with the application's other annotation checks, naming
 * bean, class, method and attribute.
 */
final class RecurringAnnotationProcessor implements BeanPostProcessor, SmartInitializingSingleton,
		BeanFactoryAware, EnvironmentAware, AnnotationCheck {

	private final ObjectProvider<RecurringJobs> jobs;

	private final List<Candidate> pending = new CopyOnWriteArrayList<>();

	private @Nullable ListableBeanFactory beanFactory;

	private @Nullable Environment environment;

	RecurringAnnotationProcessor(ObjectProvider<RecurringJobs> jobs) {
		this.jobs = jobs;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (beanFactory instanceof ListableBeanFactory listable) ? listable : null;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> type = AopUtils.getTargetClass(bean);
		if (!AnnotationUtils.isCandidateClass(type, Recurring.class)) {
			return bean;
		}
		Map<Method, Recurring> methods = MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<Recurring>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, Recurring.class));
		methods.forEach((method, annotation) -> this.pending.add(new Candidate(beanName, type, method, annotation)));
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ListableBeanFactory factory = this.beanFactory;
		if (factory != null) {
			AnnotationCheck.checkAll(factory);
			return;
		}
		List<String> failures = checkPending();
		if (!failures.isEmpty()) {
			throw new InvalidAnnotationException(annotationName(), failures);
		}
	}

	@Override
	public String annotationName() {
		return Recurring.class.getSimpleName();
	}

	/** Checks the methods found since the last check and adds the jobs of those that pass. */
	@Override
	public List<String> checkPending() {
		RecurringJobs jobs = this.jobs.getIfAvailable();
		List<String> failures = new ArrayList<>();
		List<Candidate> candidates = new ArrayList<>(this.pending);
		this.pending.removeAll(candidates);
		for (Candidate candidate : candidates) {
			try {
				Method method = candidate.method;
				QueueListener listener = AnnotatedElementUtils.findMergedAnnotation(method, QueueListener.class);
				if (listener == null) {
					throw new IllegalStateException("the method needs @QueueListener: the job's slots go to that"
							+ " listener's queue");
				}
				checkParameter(method);
				String queue = resolve(listener.queue());
				String name = resolve(candidate.annotation.name());
				RecurringJobSpec spec = spec(candidate, queue.trim());
				if (jobs != null) {
					jobs.add(name.isBlank() ? queue.trim() : name.trim(), spec);
				}
			}
			catch (InvalidSpecException ex) {
				// The spec's reasons spell the other attribute as YAML does.
				failures.add(describe(candidate) + ": " + ex.getComponent() + " "
						+ ex.getReason().replace("fixed-rate", "fixedRate"));
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				failures.add(describe(candidate) + ": " + ex.getMessage());
			}
		}
		return failures;
	}

	private RecurringJobSpec spec(Candidate candidate, String queue) {
		Recurring annotation = candidate.annotation;
		String cron = resolve(annotation.cron());
		String rate = annotation.fixedRate();
		AnnotationDurations durations = new AnnotationDurations(requireEnvironment());
		Duration fixedRate = rate.isBlank() ? null
				: durations.parse(rate, "fixedRate", "@Recurring", candidate.method);
		Duration grace = annotation.grace().isBlank() ? RecurringJobSpec.DEFAULT_GRACE
				: durations.parse(annotation.grace(), "grace", "@Recurring", candidate.method);
		String zone = resolve(annotation.zone());
		return new RecurringJobSpec(queue, cron.isBlank() ? null : cron, fixedRate,
				zone.isBlank() ? ZoneOffset.UTC : RecurringJobSpec.zone(zone), annotation.missedSlots(), grace);
	}

	private static void checkParameter(Method method) {
		Class<?>[] parameters = method.getParameterTypes();
		boolean takesSlot = parameters.length == 1 && (RecurringSlot.class.equals(parameters[0])
				|| (QueueMessage.class.equals(parameters[0]) && RecurringSlot.class
					.equals(ResolvableType.forMethodParameter(method, 0).getGeneric(0).resolve())));
		if (!takesSlot) {
			throw new IllegalStateException("the method must take RecurringSlot or QueueMessage<RecurringSlot>,"
					+ " the messages of the job's queue");
		}
	}

	private String resolve(String value) {
		return requireEnvironment().resolveRequiredPlaceholders(value);
	}

	private Environment requireEnvironment() {
		Environment environment = this.environment;
		if (environment == null) {
			throw new IllegalStateException("no environment to resolve placeholders");
		}
		return environment;
	}

	private static String describe(Candidate candidate) {
		Recurring annotation = candidate.annotation;
		String schedule = annotation.cron().isEmpty() ? "fixedRate = \"" + annotation.fixedRate() + "\""
				: "cron = \"" + annotation.cron() + "\"";
		return "bean '" + candidate.beanName + "' (" + candidate.type.getName() + "): @Recurring(" + schedule
				+ ") on " + MethodKeyEvaluator.describe(candidate.method);
	}

	private record Candidate(String beanName, Class<?> type, Method method, Recurring annotation) {
	}

}

package io.rediskit.autoconfigure.queue;

import java.util.ArrayList;
import java.util.List;

import io.rediskit.autoconfigure.support.InvalidPropertiesException.Violation;
import io.rediskit.autoconfigure.support.InvalidPropertiesException;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobListener;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.support.Background;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * The recurring jobs of {@code redis-kit.queue.recurring}, timed on the shared {@link Background}'s scheduler,
 * telling every
 * {@link RecurringJobListener} bean, and those of {@link io.rediskit.queue.Recurring @Recurring} listener methods
 * ({@link RecurringAnnotationProcessor}). A job whose queue is not configured fails startup naming the property.
 */
@Configuration(proxyBeanMethods = false)
class RecurringJobsConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RecurringJobs recurringJobs(ScriptExecutor scripts, QueueRegistry queues, QueueProperties properties,
			ObjectProvider<RecurringJobListener> listeners, Background background) {
		RecurringJobs jobs = new RecurringJobs(scripts, queues, listeners.orderedStream().toList());
		jobs.setBackground(background);
		List<Violation> violations = new ArrayList<>();
		properties.getRecurring().forEach((name, job) -> {
			String queue = job.getQueue();
			if (queue == null || !properties.getQueues().containsKey(queue)) {
				String property = "redis-kit.queue.recurring." + name + ".queue";
				violations.add(new Violation(property, String.valueOf(queue), property + " names no queue configured"
						+ " under redis-kit.queue.queues: '" + queue + "'; configure redis-kit.queue.queues." + queue));
			}
		});
		if (!violations.isEmpty()) {
			throw new InvalidPropertiesException(violations);
		}
		properties.getRecurring().forEach((name, job) -> jobs.add(name, job.toSpec()));
		return jobs;
	}

	// Static and lazy: post-processors are created before the Redis beans should be.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RecurringAnnotationProcessor recurringAnnotationProcessor(ObjectProvider<RecurringJobs> jobs) {
		return new RecurringAnnotationProcessor(jobs);
	}

}

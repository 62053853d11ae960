package io.rediskit.autoconfigure.queue;

import java.util.Map;

import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.instance.InstanceInfo;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.RecurringJobListener;
import io.rediskit.queue.RecurringJobSpec;
import io.rediskit.queue.RecurringJobs;
import io.rediskit.support.Background;
import io.rediskit.support.ClosestName;
import io.rediskit.support.ScriptExecutor;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

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
			ObjectProvider<RecurringJobListener> listeners, Background background, Environment environment) {
		RecurringJobs jobs = new RecurringJobs(scripts, queues, listeners.orderedStream().toList());
		jobs.setBackground(background);
		// The name the console's Instances page shows (application@host:pid), so that its Queues page names the
		// instance that took a job's last slot alike.
		jobs.setInstanceName(
				InstanceInfo.current(environment.getProperty("spring.application.name", "application"), "").displayName());
		PropertyChecks checks = new PropertyChecks();
		Map<String, RecurringJobSpec> specs = checks.entries(properties, "redis-kit.queue.", "recurring",
				"recurring job", properties.getRecurring(), RecurringJobsConfiguration::spec);
		properties.getRecurring().forEach((name, job) -> {
			String queue = job.getQueue();
			if (queue == null || !properties.getQueues().containsKey(queue)) {
				String property = "redis-kit.queue.recurring." + name + ".queue";
				checks.reject(property, queue, property + " names no queue configured under redis-kit.queue.queues: '"
						+ queue + "'" + ((queue != null) ? ClosestName.didYouMean(queue, properties.getQueues().keySet())
								: "") + "; configure redis-kit.queue.queues." + queue);
			}
		});
		checks.throwIfInvalid();
		specs.forEach(jobs::add);
		return jobs;
	}

	private static RecurringJobSpec spec(RecurringJobProperties job) {
		String expression = (job.getCron() != null && !job.getCron().isBlank()) ? job.getCron() : null;
		return new RecurringJobSpec((job.getQueue() != null) ? job.getQueue() : "", expression, job.getFixedRate(),
				job.getZone(), job.getMissedSlots(), job.getGrace());
	}

	// Static and lazy: post-processors are created before the Redis beans should be.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RecurringAnnotationProcessor recurringAnnotationProcessor(ObjectProvider<RecurringJobs> jobs) {
		return new RecurringAnnotationProcessor(jobs);
	}

}

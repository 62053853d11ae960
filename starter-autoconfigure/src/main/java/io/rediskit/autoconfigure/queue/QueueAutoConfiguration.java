package io.rediskit.autoconfigure.queue;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueProperties.Queue;
import io.rediskit.autoconfigure.support.ConfiguredProperties;
import io.rediskit.autoconfigure.support.PropertyChecks;
import io.rediskit.queue.Deduplication;
import io.rediskit.queue.QueueEventListener;
import io.rediskit.queue.QueueGroups;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.queue.QueueSpec;
import io.rediskit.support.Background;
import io.rediskit.support.ConfiguredSpecs;
import io.rediskit.support.InvalidSpecException;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.Observations;
import io.rediskit.support.ScriptExecutor;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures delay queues: a {@link QueueRegistry} on the application's {@link RedisConnectionFactory}
 * serving the queues of {@code redis-kit.queue.queues} (each over the delivery policies of {@code redis-kit.queue}
 * where it sets none), writing payloads with the application's
 * {@link JsonMapper} (a plain one when there is none) and telling every {@link QueueEventListener} bean of each
 * event, the processor that finds {@link QueueListener @QueueListener} methods and the
 * {@link QueueListenerContainerRegistry} that runs a listener container for each, and the recurring jobs of
 * {@code redis-kit.queue.recurring} ({@link RecurringJobsConfiguration}). The containers' pollers and watchdogs
 * run on the shared {@link Background}'s scheduler; their handlers run on threads of
 * their own (virtual with {@code spring.threads.virtual.enabled=true} on Java 21+) or, with
 * {@code redis-kit.queue.listener.executor=application}, on the application's {@code applicationTaskExecutor}.
 * Off with {@code redis-kit.queue.enabled=false}; each bean backs off when the application defines its own.
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, RedisKitAutoConfiguration.class },
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(JsonMapper.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "redis-kit.queue.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QueueProperties.class)
@Import(RecurringJobsConfiguration.class)
public final class QueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	QueueRegistry queueRegistry(ScriptExecutor scripts, RedisConnectionFactory connectionFactory, KeyNaming keyNaming,
			QueueProperties properties, ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<QueueEventListener> listeners, Background background,
			ObjectProvider<Observations> observations, Environment environment) {
		PropertyChecks checks = new PropertyChecks();
		checkValuesAsWritten(properties, environment, checks);
		check(properties, checks);
		checks.throwIfInvalid();
		QueueRegistry registry = new QueueRegistry(scripts, connectionFactory, keyNaming,
				jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()), listeners.orderedStream().toList(),
				ConfiguredSpecs.of(properties::getQueues, (queue) -> spec(queue, properties)));
		// The containers' pollers and watchdogs run short tasks that never block, as the lock's watchdog does.
		registry.setBackground(background);
		registry.setObservations(observations.getIfAvailable(() -> Observations.NOOP));
		return registry;
	}

	/**
	 * Checks the configured queues, each its own settings over the defaults. The defaults are checked first, as
	 * the spec of a queue that sets nothing; then each queue, a fault naming the property the value came from (the
	 * queue's own, or the default it inherits: an own initial-backoff above an inherited max-backoff).
	 */
	private static void check(QueueProperties properties, PropertyChecks checks) {
		// A fault of a default would be reported again for every queue that inherits it.
		if (checks.spec(properties, "redis-kit.queue.", () -> spec(new Queue(), properties)) != null) {
			checks.entries(properties, "redis-kit.queue.", "queues", "queue", properties.getQueues(),
					(queue) -> spec(queue, properties));
		}
	}

	private static QueueSpec spec(Queue queue, QueueProperties defaults) {
		return new QueueSpec(or(queue.getVisibilityTimeout(), defaults.getVisibilityTimeout()),
				or(queue.getMaxDeliveries(), defaults.getMaxDeliveries()),
				or(queue.getInitialBackoff(), defaults.getInitialBackoff()),
				or(queue.getMaxBackoff(), defaults.getMaxBackoff()),
				or(queue.getBackoffMultiplier(), defaults.getBackoffMultiplier()),
				or(queue.getBackoffJitter(), defaults.getBackoffJitter()),
				or(queue.getDeadLetterRetention(), defaults.getDeadLetterRetention()),
				or(queue.getDeadLetterMaxSize(), defaults.getDeadLetterMaxSize()), queue.getMaxPayloadSize().toBytes(),
				queue.getPollInterval(), queue.getDefaultPriority(), queue.getMaxInFlight(), queue.getRateLimit(),
				queue.getRateLimitPeriod(), deduplication(queue), groups(queue));
	}

	private static @Nullable QueueGroups groups(Queue queue) {
		QueueProperties.Groups groups = queue.getGroups();
		try {
			// Checked also while switched off: a value written is a value meant.
			QueueGroups configured = new QueueGroups(groups.getMaxInFlight(), groups.getMaxInFlightByGroup(),
					groups.getRateLimit(), groups.getRateLimitPeriod(), groups.getRateLimitByGroup());
			return groups.isEnabled() ? configured : null;
		}
		catch (InvalidSpecException ex) {
			String property = switch (ex.getComponent()) {
				case "overrides" -> "groups.maxInFlightByGroup";
				case "rateLimit" -> "groups.rateLimit";
				case "rateLimitPeriod" -> "groups.rateLimitPeriod";
				case "rateLimitOverrides" -> "groups.rateLimitByGroup";
				default -> "groups.maxInFlight";
			};
			throw new InvalidSpecException(property, ex.getReason());
		}
	}

	private static Deduplication deduplication(Queue queue) {
		Duration window = queue.getDeduplicationWindow();
		try {
			return new Deduplication(queue.getDeduplication(), (window != null) ? window : Duration.ZERO);
		}
		catch (InvalidSpecException ex) {
			throw new InvalidSpecException("deduplicationWindow", ex.getReason());
		}
	}

	private static <T> T or(@Nullable T own, T inherited) {
		return (own != null) ? own : inherited;
	}

	/**
	 * Records, naming each property and its origin, what binds but would not do what was written: a
	 * {@code default-priority} given as a number (Spring reads a YAML number as an enum's position, so a BullMQ
	 * user's 1, highest there, would become normal), and a {@code rate-limit-period} without a {@code rate-limit}
	 * (the period alone limits nothing), the queue's or its groups'.
	 */
	private static void checkValuesAsWritten(QueueProperties properties, Environment environment,
			PropertyChecks checks) {
		for (ConfigurationProperty priority : ConfiguredProperties.find(environment, "redis-kit.queue.queues",
				"default-priority")) {
			String value = String.valueOf(priority.getValue()).trim();
			if (priority.getValue() instanceof Number || value.matches("[+-]?\\d+")) {
				checks.reject(priority.getName().toString(), value, priority.getName()
						+ " must be one of high, normal, low, was the number " + value + ": priorities are named, not"
						+ " numbered");
			}
		}
		for (ConfigurationProperty period : ConfiguredProperties.find(environment, "redis-kit.queue.queues",
				"rate-limit-period")) {
			// redis-kit.queue.queues.<name>.rate-limit-period, or .<name>.groups.rate-limit-period
			ConfigurationPropertyName name = period.getName();
			Queue queue = properties.getQueues().get(name.getElement(3, Form.ORIGINAL));
			if (queue == null) {
				continue;
			}
			if (name.getNumberOfElements() == 5 && queue.getRateLimit() == 0) {
				checks.reject(name.toString(), period.getValue(), name
						+ " is set without a rate-limit, and alone limits nothing: set "
						+ name.getParent().append("rate-limit") + " (deliveries per period) or remove it");
			}
			QueueProperties.Groups groups = queue.getGroups();
			if (name.getNumberOfElements() == 6 && "groups".equals(name.getElement(4, Form.DASHED))
					&& groups.getRateLimit() == 0 && groups.getRateLimitByGroup().values().stream().allMatch((l) -> l == 0)) {
				checks.reject(name.toString(), period.getValue(), name
						+ " is set without a rate-limit or rate-limit-by-group, and alone limits nothing: set "
						+ name.getParent().append("rate-limit") + " (a group's deliveries per period) or remove it");
			}
		}
	}

	@Bean
	@ConditionalOnMissingBean
	QueueListenerContainerRegistry queueListenerContainerRegistry(ObjectProvider<QueueRegistry> registry,
			ObjectProvider<QueueProperties> properties,
			@Qualifier("applicationTaskExecutor") ObjectProvider<Executor> applicationTaskExecutor,
			ObjectProvider<QueueListenerProcessor> processor, Environment environment) {
		QueueListenerContainerRegistry.Settings settings = new QueueListenerContainerRegistry.Settings() {

			@Override
			public QueueRegistry queues() {
				return registry.getObject();
			}

			@Override
			public QueueProperties properties() {
				return properties.getObject();
			}

			@Override
			public @Nullable Executor applicationExecutor() {
				return applicationTaskExecutor.getIfAvailable();
			}

			@Override
			public boolean virtualThreads() {
				return Threading.VIRTUAL.isActive(environment);
			}

		};
		return new QueueListenerContainerRegistry(settings,
				() -> processor.ifAvailable(QueueListenerProcessor::failOnPending));
	}

	// Static and lazy: post-processors are created before the Redis beans should be.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static QueueListenerProcessor queueListenerProcessor(ObjectProvider<QueueRegistry> registry,
			ObjectProvider<QueueListenerContainerRegistry> containers) {
		return new QueueListenerProcessor(registry, containers);
	}

}

package io.rediskit.autoconfigure.queue;

import io.rediskit.autoconfigure.RedisKitAutoConfiguration;
import io.rediskit.autoconfigure.queue.QueueProperties.Queue;
import io.rediskit.queue.QueueEventListener;
import io.rediskit.queue.QueueListener;
import io.rediskit.queue.QueueRegistry;
import io.rediskit.support.KeyNaming;
import io.rediskit.support.ScriptExecutor;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures delay queues: a {@link QueueRegistry} on the application's {@link RedisConnectionFactory}
 * serving the queues of {@code redis-kit.queue.queues}, writing payloads with the application's
 * {@link JsonMapper} (a plain one when there is none) and telling every {@link QueueEventListener} bean of each
 * event, and the processor that runs a listener container for each {@link QueueListener @QueueListener}
 * method, and the recurring jobs of {@code redis-kit.queue.recurring} ({@link RecurringJobsConfiguration}). Off
 * with {@code redis-kit.queue.enabled=false}; each bean backs off when the application defines its own.
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
			ObjectProvider<QueueEventListener> listeners) {
		return new QueueRegistry(scripts, connectionFactory, keyNaming,
				jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()), listeners.orderedStream().toList(),
				(name) -> {
					Queue queue = properties.getQueues().get(name);
					return (queue != null) ? queue.toSpec() : null;
				});
	}

	// Static and lazy: post-processors are created before the Redis beans should be.
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static QueueListenerProcessor queueListenerProcessor(ObjectProvider<QueueRegistry> registry,
			ObjectProvider<QueueProperties> properties) {
		return new QueueListenerProcessor(registry, properties);
	}

}
